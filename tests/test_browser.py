"""What a reader's browser shows: every page of the built book at 1400 px and 420 px (``make browser-test``).

Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs both; nothing is downloaded at run time),
driven by Selenium, open every page of ``_build/html/book`` from a server on 127.0.0.1, wait until MathJax
has typeset it, and assert:

* no display formula is wider than its container, and no inline formula sticks out of its block;
* no formula failed to typeset (``mjx-merror``) and no role failed (docutils' ``problematic``);
* every image has loaded;
* the browser logged no error.

Every internal link resolves (the page, and the anchor in it) is read from the HTML files themselves.
``BROWSER_SCREENSHOTS=<folder>`` also saves a screenshot of every page at both widths. Marked ``browser``:
``make test`` leaves these tests out; without a built book or a browser they fail under ``make browser-test``
(``BROWSER_TEST_REQUIRED=1``) and are skipped elsewhere.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import urllib.parse
from pathlib import Path

import pytest

BeautifulSoup = pytest.importorskip("bs4").BeautifulSoup  # the GPU check has no Jupyter stack

import browser as chrome
from browser import HTML

PAGES = sorted(p.relative_to(HTML).as_posix() for p in (HTML / "book").glob("*.html"))
WIDTHS = (1400, 420)
SLACK = 1.0  # px: sub-pixel rounding of layout widths

pytestmark = pytest.mark.browser


def _skip_or_fail(why: str):
    if os.environ.get("BROWSER_TEST_REQUIRED"):
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="module")
def site():
    """The built book on 127.0.0.1; yields its base URL."""
    why = chrome.missing()
    if why:
        _skip_or_fail(why)
    with chrome.served() as url:
        yield url


@pytest.fixture(scope="module")
def browser(site):
    with chrome.chromium() as driver:
        yield driver


INSPECT = """
const SLACK = arguments[0];
const text = (e) => (e.closest('[id]') ? '#' + e.closest('[id]').id + ': ' : '') +
    (e.querySelector('mjx-assistive-mml') ? e.querySelector('mjx-assistive-mml').textContent : e.textContent)
    .slice(0, 80);
const wide = [];
for (const m of document.querySelectorAll('mjx-container[display="true"]')) {
  const math = m.querySelector('mjx-math');
  const box = m.getBoundingClientRect().width;
  const need = Math.max(math ? math.getBoundingClientRect().width : 0, m.scrollWidth);
  if (need > box + SLACK) wide.push(`display ${Math.round(need)} px in ${Math.round(box)} px: ${text(m)}`);
}
for (const m of document.querySelectorAll('mjx-container:not([display="true"])')) {
  const block = m.parentElement.closest('p, li, dd, dt, td, th, div, figcaption');
  if (!block) continue;
  const r = m.getBoundingClientRect(), b = block.getBoundingClientRect();
  const style = getComputedStyle(block);
  if (style.overflowX === 'auto' || style.overflowX === 'scroll') continue;  // a scroll box shows all of it
  if (r.right > b.right + SLACK || r.left < b.left - SLACK)
    wide.push(`inline formula out of its block by ${Math.round(Math.max(r.right - b.right, b.left - r.left))} px: ${text(m)}`);
}
return {
  wide: wide,
  merror: Array.from(document.querySelectorAll('mjx-merror')).map(text),
  problematic: Array.from(document.querySelectorAll('.problematic')).map(e => e.textContent.slice(0, 80)),
  images: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
};
"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", PAGES or ["(no built book)"])
def test_the_page_shows_everything(browser, site, page, width):
    browser.set_window_size(width, 1000)
    browser.get_log("browser")  # drop what earlier pages logged
    has_math = "math notranslate" in (HTML / page).read_text(encoding="utf-8")  # Sphinx loads MathJax only there
    assert chrome.open_typeset(browser, f"{site}/{page}") or not has_math, f"{page}: MathJax did not load"
    found = browser.execute_script(INSPECT, SLACK)
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    folder = os.environ.get("BROWSER_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(width, min(height, 16000))
        browser.save_screenshot(str(Path(folder) / f"{Path(page).stem}-{width}.png"))
    problems = ([f"too wide: {w}" for w in found["wide"]] + [f"MathJax error: {m}" for m in found["merror"]]
                + [f"failed role: {p}" for p in found["problematic"]] + [f"image not loaded: {i}" for i in found["images"]]
                + [f"console error: {e}" for e in errors])
    assert not problems, f"{page} at {width} px:\n" + "\n".join(problems)


def _ids_and_links(path: Path) -> tuple[set[str], list[str]]:
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    ids = {e["id"] for e in soup.find_all(id=True)}
    links = [a["href"] for a in soup.find_all("a", href=True)]
    return ids, links


@pytest.mark.parametrize("page", PAGES or ["(no built book)"])
def test_every_internal_link_resolves(page):
    if not PAGES:
        _skip_or_fail(f"no built book in {HTML} (make book)")
    source = HTML / page
    broken = []
    for href in _ids_and_links(source)[1]:
        parts = urllib.parse.urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
            continue
        target = (source.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else source
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            broken.append(f"{href}: no file {target.relative_to(HTML.resolve()) if HTML.resolve() in target.parents else target}")
        elif parts.fragment and target.suffix == ".html" and parts.fragment not in _ids(target):
            broken.append(f"{href}: no anchor #{parts.fragment} in {target.name}")
    assert not broken, f"{page}:\n" + "\n".join(broken)


@functools.cache
def _ids(path: Path) -> set[str]:
    return _ids_and_links(path)[0]


def test_browser_is_installed_where_the_browser_test_is_required():
    if not os.environ.get("BROWSER_TEST_REQUIRED"):
        pytest.skip("only under make browser-test")
    assert shutil.which("chromium") and shutil.which("chromedriver")


def _title(page: str) -> str:
    soup = BeautifulSoup((HTML / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    for permalink in soup.select("h1 a.headerlink"):
        permalink.decompose()
    return " ".join(soup.find("h1").get_text(" ").split())


def test_the_pdf_holds_every_page_title_and_every_figure():
    """``make pdf`` printed every page of the table of contents, with its title and its images."""
    import book_pdf

    if not book_pdf.OUT.exists():
        _skip_or_fail(f"no PDF at {book_pdf.OUT} (make pdf)")
    text = subprocess.run(["pdftotext", str(book_pdf.OUT), "-"], capture_output=True, text=True, check=True).stdout
    text = " ".join(text.split())
    pages = book_pdf.pages_in_order()
    missing = [_title(p) for p in pages if _title(p) not in text]
    assert not missing, f"page titles not in the PDF: {missing}"
    listed = subprocess.run(["pdfimages", "-list", str(book_pdf.OUT)], capture_output=True, text=True,
                            check=True).stdout.splitlines()[2:]
    figures = sum(len(BeautifulSoup((HTML / f"{p}.html").read_text(encoding="utf-8"), "html.parser")
                      .select("figure img, div.cell_output img")) for p in pages)
    assert figures > 0 and len(listed) >= figures, f"{len(listed)} images in the PDF, {figures} figures on the pages"
