"""Record what each dashboard page sends, for the floor (benchmarks/floor_app.py).

    python benchmarks/floor_record.py QRELS RUN [RUN ...] --out FILE [--pages P,...]
                                      [--k TITLE=K,K,... ...]

Part of the browser benchmark (benchmarks/browser.py runs it before its servers start). The
collection is uploaded into the dashboard under streamlit.testing's AppTest, as
profile_rerun.py does; then every page asked for (and Method notes, the page the benchmark
leaves from) is run whole in each state of a small grid, and every element and block the
run sends is kept as the server would send it (the ForwardMsg deltas, with their place in
the page and the fragment that drew them). The grid, one dimension for each control the
benchmark changes, so that a change on the floor changes what the same change changes on
the dashboard:

- the runs shown: every run, and every run but the last ("run shown"); on Compare also
  every run with the last left out of "Candidates (after)" ("candidate");
- K: K_VALUES (a change of K on the floor moves to the next, modulo their number), and on
  a page given `--k TITLE=K,...`, those K too (the floor then draws a K typed that was
  recorded at that K: the drill-down's tables and grading rows, and Compare's rank movement,
  have as many rows as K asks for, so the K typed, not its index, decides what the page
  costs to draw);
- the DCG gain: each of its choices;
- on the drill-down, the query: the first QUERIES of its picker (the floor's query moves
  to the next, modulo their number);
- on Compare, the baseline: the first run shown and the second (with every candidate).

Everything the engine and the pages compute is done here, once; the floor only sends it
again. FILE is a pickle: {"navigation": the navigation message's bytes, "k": K_VALUES,
"k_by_page": {page title: the K recorded there, K_VALUES first, when more were asked for},
"scenarios": {(page title, runs shown, candidates or None, K's index, gain's index, query's
index, baseline's index): [(delta path, fragment id, "element" or "block", the proto's
bytes)]}}, the indices 0 where the page has no such control (a pickle this script wrote:
read it only from there).
"""

from __future__ import annotations

import argparse
import contextlib
import pickle
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from profile_rerun import open_uploaded  # noqa: E402

from dashboard.state import session  # noqa: E402

K_VALUES = (10, 11, 12)  # the dashboard's first K, then two more
QUERIES = 3  # the drill-down's first queries recorded
BASELINES = 2  # Compare's first runs recorded as the baseline
QUERY_KEY = "drilldown.query"  # the drill-down's picker (picking.select_query's key)
COMPARE, DRILL_DOWN, BOUNCE = "Compare", "Drill-down", "Method notes"
ROOTS = (0, 1)  # main and sidebar: what a page draws (event and bottom are not used)


@contextlib.contextmanager
def kept_messages() -> Iterator[dict]:
    """AppTest turns each run's ForwardMsgs into its element tree and drops them: keep the
    last run's under "messages" meanwhile."""
    from streamlit.testing.v1 import local_script_runner

    kept: dict = {}
    parse = local_script_runner.parse_tree_from_messages

    def keep(messages):
        kept["messages"] = list(messages)
        return parse(messages)

    local_script_runner.parse_tree_from_messages = keep
    try:
        yield kept
    finally:
        local_script_runner.parse_tree_from_messages = parse


def deltas(messages) -> list[tuple[tuple[int, ...], str, str, bytes]]:
    """The run's elements and blocks on the main area and the sidebar, in the order sent:
    (delta path, fragment id, "element" or "block", the proto's bytes). Spinners (transient)
    are not kept: they show while a run computes, and the floor computes nothing."""
    found = []
    for message in messages:
        if message.WhichOneof("type") != "delta":
            continue
        path, delta = tuple(message.metadata.delta_path), message.delta
        kind = delta.WhichOneof("type")
        if kind == "new_transient" or path[0] not in ROOTS:
            continue
        if kind == "new_element":
            found.append((path, delta.fragment_id, "element",
                          delta.new_element.SerializeToString()))
        elif kind == "add_block":
            if delta.add_block.HasField("transparent"):
                raise SystemExit(f"a fragment wrote outside its own container at {path}: "
                                 "benchmarks/floor_app.py does not replay that")
            found.append((path, delta.fragment_id, "block", delta.add_block.SerializeToString()))
        else:
            raise SystemExit(f"a {kind} delta at {path}: benchmarks/floor_app.py does not "
                             "replay that")
    return found


def navigation(messages) -> bytes:
    return next(m.navigation.SerializeToString() for m in messages
                if m.WhichOneof("type") == "navigation")


def page_scripts(navigation_bytes: bytes) -> dict[str, str]:
    """Page title -> its script as AppTest's switch_page takes it (app_pages/NAME.py, from
    the url path the navigation gives each page, NAME for app_pages/NAME.py)."""
    from streamlit.proto.Navigation_pb2 import Navigation

    pages = Navigation.FromString(navigation_bytes).app_pages
    return {page.page_name: f"app_pages/{page.url_pathname or 'overview'}.py" for page in pages}


def shapes(title: str, runs: list[str]) -> list[tuple[list[str], list[str] | None]]:
    """(runs shown, candidates) recorded on `title`; candidates None: the page has none, or
    Compare's default (every run shown but the baseline)."""
    every = [(runs, None)]
    if len(runs) > 1:
        every.append((runs[:-1], None))
    if title == COMPARE and len(runs) > 2:
        every.append((runs, runs[1:-1]))
    return every


def checked(app, where: str):
    if app.exception or app.error:
        raise SystemExit(f"the dashboard failed on {where}: "
                         f"{[e.value for e in (*app.exception, *app.error)]}")
    return app


def k_values(title: str, more: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The K recorded on `title`: K_VALUES, then the page's own from `--k`."""
    return tuple(dict.fromkeys((*K_VALUES, *more.get(title, ()))))


def record(qrels: Path, runs: list[Path], titles: list[str],
           more_k: dict[str, tuple[int, ...]] | None = None) -> dict:
    """Every state of the grid of every page in `titles` (see the module's docstring);
    `more_k`: page title -> the K to record there beside K_VALUES."""
    more_k = more_k or {}
    names = [run.stem for run in runs]
    gains = list(session.CHOICES["gain"])
    scenarios = {}
    with kept_messages() as kept:
        app = checked(open_uploaded(qrels, runs), "the upload")
        app.run()
        navigation_bytes = navigation(kept["messages"])
        scripts = page_scripts(navigation_bytes)

        def kept_run(key: tuple, where: str) -> None:
            checked(app.run(), where)
            scenarios[key] = deltas(kept["messages"])

        for title in titles:
            checked(app.switch_page(scripts[title]).run(), title)
            every = 1 if title == BOUNCE else None  # the page left from: one state
            for shown, candidates in shapes(title, names)[:every]:
                app.multiselect(key=session.RUNS).set_value(shown)
                checked(app.run(), f"{title}, runs shown {shown}")
                counted = None if title != COMPARE else len(candidates or shown[1:])
                baselines = (shown[:BASELINES] if title == COMPARE and candidates is None
                             else shown[:1])
                for gain_at, gain in enumerate(gains[:every]):
                    app.session_state[session.settings_key("gain")] = gain
                    for baseline_at, baseline in enumerate(baselines):
                        if title == COMPARE:  # its callback puts the baseline first
                            app.selectbox(key=session.BASELINE).set_value(baseline)
                            checked(app.run(), f"{title}, baseline {baseline}")
                            if candidates is not None:
                                app.multiselect(key=session.CANDIDATES).set_value(candidates)
                        for k_at, k in enumerate(k_values(title, more_k)[:every]):
                            app.number_input(key=session.K).set_value(k)
                            if title != DRILL_DOWN:
                                kept_run((title, len(shown), counted, k_at, gain_at, 0,
                                          baseline_at), f"{title}, K = {k}")
                                continue
                            checked(app.run(), f"{title}, K = {k}")
                            # the picker lists "id · ...": AppTest cannot pick through its
                            # format_func, the query every page shares can be set
                            picker = app.selectbox(key=QUERY_KEY).options
                            for query_at, option in enumerate(picker[:QUERIES]):
                                app.session_state[session.QUERY] = option.split(" ", 1)[0]
                                kept_run((title, len(shown), counted, k_at, gain_at,
                                          query_at, 0), f"{title}, K = {k}, {option}")
                    if title == COMPARE:
                        app.selectbox(key=session.BASELINE).set_value(shown[0])
                        checked(app.run(), f"{title}, baseline {shown[0]}")
                if candidates is not None:
                    app.multiselect(key=session.CANDIDATES).set_value(shown[1:])
            app.multiselect(key=session.RUNS).set_value(names)
            app.number_input(key=session.K).set_value(K_VALUES[0])
            app.session_state[session.settings_key("gain")] = gains[0]
            checked(app.run(), title)
    return {"navigation": navigation_bytes, "k": K_VALUES,
            "k_by_page": {title: k_values(title, more_k) for title in titles
                          if title in more_k and title != BOUNCE},
            "scenarios": scenarios}


def page_k(text: str) -> tuple[str, tuple[int, ...]]:
    """`--k`'s "TITLE=K,K,..."."""
    title, _, ks = text.rpartition("=")
    if not title or not ks:
        raise argparse.ArgumentTypeError(f"--k takes TITLE=K,K,...; got {text!r}")
    return title.strip(), tuple(int(k) for k in ks.split(","))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qrels", type=Path)
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pages", default="Overview,K sweep,Per-query heatmap,Drill-down,"
                        "Compare,Overlap", help="comma-separated page titles")
    parser.add_argument("--k", type=page_k, action="append", default=[],
                        help="TITLE=K,K,...: K to record on that page beside "
                        f"{', '.join(map(str, K_VALUES))} (repeatable)")
    args = parser.parse_args()
    titles = list(dict.fromkeys([*(t.strip() for t in args.pages.split(",") if t.strip()),
                                 BOUNCE]))
    start = time.perf_counter()
    recording = record(args.qrels, args.runs, titles, dict(args.k))
    args.out.write_bytes(pickle.dumps(recording))
    print(f"recorded {len(recording['scenarios'])} page states in "
          f"{time.perf_counter() - start:.0f} s: {args.out}")


if __name__ == "__main__":
    main()
