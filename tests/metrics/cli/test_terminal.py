"""Ids from files print as what they hold: no table and no report line the command line
writes carries a raw control character (ESC retitles a window or clears the screen) or a
bidirectional override; each is written as its escape."""

from __future__ import annotations

import pytest

from metrics.vocabulary.format import terminal
from tests.metrics.capped import run_capped

HOSTILE = "q\x1b]0;owned\x07\x1b[2J\u202e\x9b1"


def test_terminal_escapes_controls_and_keeps_the_rest():
    assert terminal(HOSTILE) == "q\\x1b]0;owned\\x07\\x1b[2J\\u202e\\x9b1"
    assert terminal("plain q1 · café") == "plain q1 · café"
    assert terminal("a\tb c") == "a\\tb c" and terminal("a b", spaces=True) == "a\\x20b"


@pytest.mark.parametrize("command", ["unjudged", "score", "leaderboard", "overlap", "compare"])
def test_no_command_prints_a_raw_control_character(tmp_path, command):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "a.run"
    qrels.write_bytes(f"{HOSTILE} 0 d1 1\nq2 0 d2 1\n".encode())
    run.write_bytes(f"{HOSTILE} Q0 dX 1 2.0 a\n{HOSTILE} Q0 d1 2 1.0 a\nq9 Q0 d2 1 1 a\n"
                    .encode())
    args = [] if command == "score" else [command]
    done = run_capped([*args, "--qrels", str(qrels), "--run", str(run), "--run", f"b={run}"],
                      cap_mb=3072)
    assert done.returncode == 0, done.stderr.decode()[-400:]
    for stream in (done.stdout, done.stderr):
        text = stream.decode()
        assert not any(c in text for c in "\x1b\x07\u202e\x9b"), text[-400:]
    if command == "unjudged":
        assert "q\\x1b]0;owned\\x07\\x1b[2J\\u202e\\x9b1" in done.stdout.decode()
