"""The book in a real browser: a local server for ``_build/html`` and Debian's headless chromium through Selenium.

Used by ``tests/test_browser.py`` (``make browser-test``) and ``tests/book_pdf.py`` (``make pdf``). Nothing is
downloaded: the browser and its driver are Debian's packages ``chromium`` and ``chromium-driver``.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))  # another build: BOOK_HTML=<its html folder>
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
TYPESET_LIMIT = 120  # seconds for a page to load and MathJax to typeset it (about a second each)

# Resolves to true once MathJax has typeset the page (false when the page has no MathJax).
TYPESET = """
const done = arguments[arguments.length - 1];
const wait = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise.then(() => done(true)) : done(false);
if (document.readyState === 'complete') wait(); else window.addEventListener('load', wait);
"""


def missing() -> str | None:
    """Why the browser cannot look at the book here, or ``None``."""
    if not (HTML / "book").is_dir():
        return f"no built book in {HTML} (make book)"
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        return "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def served(folder: Path = HTML):
    """``folder`` served on 127.0.0.1 at a port the operating system picks; yields the base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium():
    """Headless chromium with its console log kept, started without any network traffic of its own."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--hide-scrollbars", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_script_timeout(TYPESET_LIMIT)
        driver.set_page_load_timeout(TYPESET_LIMIT)
        try:
            yield driver
        finally:
            driver.quit()


def open_typeset(driver, url: str) -> bool:
    """Open ``url`` and wait until MathJax has typeset it; whether MathJax ran."""
    driver.get(url)
    return bool(driver.execute_async_script(TYPESET))
