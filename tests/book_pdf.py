"""The whole book as one PDF, for reading offline and printing: ``make pdf`` (after ``make book``).

Every page of ``_build/html`` in the order of ``_toc.yml`` is opened in Debian's headless chromium, printed
once MathJax has typeset it (A4, the theme's print style: no sidebars), and the pages are joined by
``pdfunite`` (Debian's ``poppler-utils``) into ``_build/pdf/executable-proofs.pdf``.
"""

from __future__ import annotations

import argparse
import base64
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

import browser as chrome

OUT = chrome.ROOT / "_build" / "pdf" / "executable-proofs.pdf"
A4_CM = (21.0, 29.7)


def pages_in_order(toc: Path = chrome.ROOT / "_toc.yml") -> list[str]:
    """The book's pages (``book/intro``, ...) in the table of contents' order."""
    spec = yaml.safe_load(toc.read_text(encoding="utf-8"))
    order = [spec["root"]]

    def walk(entries):
        for entry in entries or []:
            order.append(entry["file"])
            walk(entry.get("sections"))

    for part in spec.get("parts", []):
        walk(part.get("chapters"))
    walk(spec.get("chapters"))
    return order


def print_book(out: Path = OUT) -> Path:
    """Print every page and join them into ``out``; returns ``out``."""
    why = chrome.missing()
    if why:
        raise SystemExit(why)
    # Through the DevTools protocol: WebDriver's print command gives the renderer 10 s, which a long page
    # with many figures exceeds on a loaded machine.
    options = {"paperWidth": A4_CM[0] / 2.54, "paperHeight": A4_CM[1] / 2.54, "printBackground": True}
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="book-pdf-") as folder, chrome.served() as site, \
            chrome.chromium() as driver:
        parts = []
        for i, page in enumerate(pages_in_order()):
            chrome.open_typeset(driver, f"{site}/{page}.html")
            part = Path(folder) / f"{i:02d}.pdf"
            part.write_bytes(base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", options)["data"]))
            parts.append(str(part))
        subprocess.run(["pdfunite", *parts, str(out)], check=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    path = print_book(parser.parse_args(argv).out)
    print(f"The book as a PDF: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
