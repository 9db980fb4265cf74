"""The real-browser tests' shared pieces: one `streamlit run` server and one Chromium for the
whole session (each test opens its own browser context, hence its own Streamlit session),
and the helpers that wait for a page to settle and check what it shows.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
TIMEOUT_MS = 60_000

# skipped only off CI: .ci/run installs chromium, so there a missing browser is a failure
NO_BROWSER = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("CI"), reason="needs Debian's /usr/bin/chromium"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


SERVER_SCRIPT = "dashboard/serve.py"  # README's command: the app behind its warm-up
# `streamlit run`, with every thread's stack written to the server's log on SIGUSR1: a test
# that fails against a server that stopped answering shows where it stood (LIVE, `page`)
LAUNCH = ("import faulthandler, signal, sys; "
          "faulthandler.register(signal.SIGUSR1, all_threads=True); "
          "from streamlit.web.cli import main; sys.argv[0] = 'streamlit'; sys.exit(main())")
LIVE: dict[int, object] = {}  # pid -> log file of every server running now


def start_server(port: int) -> subprocess.Popen:
    """`streamlit run dashboard/serve.py` from the repository root on `port`, once its
    health check answers; the test fails with the server's output when it does not. The
    output goes to a file, not a pipe: a pipe nobody reads blocks the server once it is full."""
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "run", SERVER_SCRIPT,
         "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                        timeout=2) as response:
                if response.status == 200:
                    LIVE[process.pid] = log
                    return process
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log.seek(0)
            output = log.read().decode(errors="replace")
            pytest.fail(f"streamlit did not start on port {port}:\n{output}")
        time.sleep(0.3)


def stop_server(process: subprocess.Popen) -> None:
    """The server and its children stopped (SIGTERM, then SIGKILL after 10 s)."""
    LIVE.pop(process.pid, None)
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def server_logs() -> str:
    """Every live server's log, each ending with the stacks of its threads now."""
    parts = []
    for pid, log in list(LIVE.items()):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGUSR1)
        time.sleep(0.5)
        log.seek(0)
        parts.append(f"--- server {pid}:\n{log.read().decode(errors='replace')[-40_000:]}")
    return "\n".join(parts)


@pytest.fixture(scope="session")
def server():
    """One server shared by every browser test (each browser context is a session of its
    own)."""
    port = free_port()
    process = start_server(port)
    yield f"http://127.0.0.1:{port}"
    stop_server(process)


@pytest.fixture
def servers():
    """`servers(port)` starts a server of the test's own; each one still running stops after
    the test. Asked for before `page`, they outlive it, so that a failure's report (`page`)
    still reads their stacks."""
    started: list[subprocess.Popen] = []

    def start(port: int) -> subprocess.Popen:
        started.append(start_server(port))
        return started[-1]

    yield start
    for process in started:
        if process.pid in LIVE:
            stop_server(process)


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("SCREENSHOT_DIR")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)  # read by `page` as it closes
    return report


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:  # what the page showed, for a failure on CI
        try:
            shown = f"{location(page)} showed:\n{page.evaluate('document.body.innerText')}"
        except Exception as error:  # noqa: BLE001 (the page may be gone)
            shown = f"(page unreadable: {error})"
        print(f"--- the page at {shown[:6000]}\n{server_logs()}")
    context.close()


QUIET_MS = 300  # the page counts as settled once no element was added, removed or
QUIET_MAX_MS = 5_000  # re-texted for this long (styles may animate), or after this at most
_QUIET = """([quiet, most]) => new Promise(resolve => {
    let timer;
    const done = () => { observer.disconnect(); clearTimeout(cap); resolve(true); };
    const observer = new MutationObserver(() => {
        clearTimeout(timer); timer = setTimeout(done, quiet);
    });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
    timer = setTimeout(done, quiet);
    const cap = setTimeout(done, most);
})"""


def settle(page) -> None:
    """Wait until the script has finished and the page has stopped changing: no running
    indicator, then no change to the page for QUIET_MS."""
    page.wait_for_selector('[data-testid="stMainBlockContainer"]')
    time.sleep(0.3)  # a rerun the last action started shows its indicator by then
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " && !document.querySelector('[data-testid=\"stSpinner\"]')"
    )
    page.evaluate(_QUIET, [QUIET_MS, QUIET_MAX_MS])


def choose(page, combobox, option: str, attempts: int = 5) -> None:
    """Pick `option` in the select box `combobox` (a locator). A rerun that lands while the
    list is open (a chart finishing, the link being rewritten) closes it, and a click that
    lands while the main area is still scrolling to the box focuses it without opening it:
    scroll first, then open it again until the option shows."""
    wanted = page.get_by_role("option", name=option, exact=True)
    combobox.scroll_into_view_if_needed()
    settle(page)
    for _ in range(attempts):
        combobox.click()
        try:
            wanted.wait_for(state="visible", timeout=5_000)
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: the list closed again
            settle(page)
            continue
        wanted.click()
        return
    raise AssertionError(f"the option {option!r} never showed in its list")


def location(page) -> str:
    return page.evaluate("location.href")  # Playwright's page.url lags history.replaceState


def check(page, shots: Path, name: str, *texts: str, cells: tuple[str, ...] = ()) -> None:
    """Every text visible, every table cell in its grid, no exception box; then a full-page
    screenshot. (st.dataframe draws on a canvas; its cells are mirrored in a hidden grid.)"""
    settle(page)
    for text in texts:
        page.get_by_text(text, exact=False).first.wait_for(state="visible")
    for text in cells:
        page.locator('[data-testid="stDataFrame"] [role="gridcell"]', has_text=text) \
            .first.wait_for(state="attached")
    assert page.locator('[data-testid="stException"]').count() == 0
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll("
        "'[data-testid=stMain], [data-testid=stSidebarContent]')].map(e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": 1500, "height": min(height + 60, 12_000)})
    time.sleep(0.5)
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": 1500, "height": 1000})


@pytest.fixture(scope="module")
def listener():
    """A local HTTP server that records the path of every request it gets."""
    seen: list[str] = []

    class Record(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the stdlib's name)
            seen.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Record)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()


def file_inputs(page, server: str):
    """The dashboard opened on "My files": its file inputs (qrels, runs, queries, corpus)."""
    page.goto(server)
    settle(page)
    page.get_by_text("My files").click()
    settle(page)
    return page.locator('[data-testid="stFileUploaderDropzoneInput"]')


def upload(page, server: str, qrels: str | None, runs: list[str], queries: str | None = None,
           corpus: str | None = None) -> None:
    """Opens "My files" on `server` and uploads what is given, each box in turn, settling
    after each."""
    inputs = file_inputs(page, server)
    for box, files in enumerate((qrels, runs, queries, corpus)):  # the boxes' order
        if files:
            inputs.nth(box).set_input_files(files)
            settle(page)
