"""notebooks/*.ipynb are the executed twins of the chapters book/[0-9]*.md.

``python tests/notebook_twins.py [-j JOBS] [STEM ...]`` (``make notebooks``) converts every chapter (or
the named ones) with jupytext, executes it from ``book/`` at ``BOOK_SCALE=ci`` on the CPU, ``JOBS``
chapters at once, and writes ``notebooks/<chapter>.ipynb`` with its outputs. Execution timings are not recorded, cell ids are numbered, consecutive stream outputs are merged
(their chunking depends on timing) and widget models are dropped (they have random ids and need a
kernel anyway; the widget's text stays), so that regenerating an unchanged chapter on the same
machine reproduces the committed file.
``tests/test_notebook_twins.py`` fails when a twin is missing, stale or orphaned.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
BOOK, NOTEBOOKS = ROOT / "book", ROOT / "notebooks"
CELL_TIMEOUT = 300  # seconds, as the book build's execute.timeout
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def chapters() -> list[Path]:
    """The chapter sources, in book order."""
    return sorted(BOOK.glob("[0-9]*.md"))


def twin(chapter: Path) -> Path:
    """Where the executed twin of ``chapter`` lives."""
    return NOTEBOOKS / f"{chapter.stem}.ipynb"


def cells(notebook: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """What must agree between source and twin: each cell's type and source."""
    return [(cell.cell_type, cell.source) for cell in notebook.cells]


def convert(chapter: Path) -> nbformat.NotebookNode:
    """The chapter as an (unexecuted) notebook, with cell ids numbered instead of random."""
    notebook = jupytext.read(chapter)
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index}"
    return notebook


def execute(chapter: Path) -> nbformat.NotebookNode:
    """Convert and execute ``chapter`` with the book's environment; return the executed notebook."""
    from nbclient import NotebookClient

    notebook = convert(chapter)
    # The output of a cell may arrive after its reply; on a busy machine later than nbclient's default 4 s,
    # which would drop it silently. Wait as long as for the cell, and fail rather than drop.
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3", record_timing=False,
                            startup_timeout=CELL_TIMEOUT, iopub_timeout=CELL_TIMEOUT, raise_on_iopub_timeout=True,
                            resources={"metadata": {"path": str(BOOK)}})
    client.execute()
    return notebook


def without_widget_state(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop widget models (random ids, meaningless without a kernel); their text/plain stays."""
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    return notebook


def with_streams_merged(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Merge consecutive outputs of one stream: how a kernel chunks a cell's printing depends on timing."""
    for cell in notebook.cells:
        merged = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (output.output_type == "stream" and previous is not None and previous.output_type == "stream"
                    and previous.name == output.name):
                previous.text += output.text
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged
    return notebook


def write_twin(chapter: Path) -> None:
    """Execute ``chapter`` and write its twin."""
    print(f"executing {chapter.relative_to(ROOT)}", flush=True)
    nbformat.write(with_streams_merged(without_widget_state(execute(chapter))), twin(chapter))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Execute every chapter into notebooks/ (its executed twin).")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="chapters executed at once (one kernel each)")
    parser.add_argument("only", nargs="*", help="chapter stems to execute (default: every chapter)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be a positive integer, got {args.jobs}")
    selected = [c for c in chapters() if not args.only or c.stem in args.only]
    unknown = sorted(set(args.only) - {c.stem for c in chapters()})
    if unknown:
        parser.error(f"no chapter {unknown}; chapters: {[c.stem for c in chapters()]}")
    os.environ["BOOK_SCALE"], os.environ["BOOK_DEVICE"] = "ci", "cpu"
    NOTEBOOKS.mkdir(exist_ok=True)
    with multiprocessing.Pool(args.jobs) as pool:
        pool.map(write_twin, selected, chunksize=1)
    wanted = {twin(c).name for c in chapters()}
    for orphan in NOTEBOOKS.glob("*.ipynb"):
        if orphan.name not in wanted:
            print(f"removing orphan {orphan.relative_to(ROOT)}")
            orphan.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
