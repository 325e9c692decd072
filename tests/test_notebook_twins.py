"""notebooks/ must hold exactly the executed twins of book/[0-9]*.md, in sync with their sources."""

import re

import nbformat
import pytest
from notebook_twins import NOTEBOOKS, chapters, cells, convert, twin


def test_every_chapter_has_a_twin_and_no_twin_is_orphaned():
    assert chapters(), "no chapter found in book/"
    expected = {twin(chapter).name for chapter in chapters()}
    present = {path.name for path in NOTEBOOKS.glob("*.ipynb")}
    assert present == expected, f"missing {sorted(expected - present)}, orphaned {sorted(present - expected)}; run `make notebooks`"


@pytest.mark.parametrize("chapter", chapters(), ids=lambda path: path.stem)
def test_twin_matches_its_source(chapter):
    executed = nbformat.read(twin(chapter), as_version=4)
    assert cells(executed) == cells(convert(chapter)), f"{twin(chapter).name} is stale; run `make notebooks`"
    code = [cell for cell in executed.cells
            if cell.cell_type == "code" and "skip-execution" not in cell.metadata.get("tags", [])]
    assert all(cell.execution_count is not None for cell in code), "every code cell of a twin must have been executed"


WIDGET_CELL_TAGS = {"skip-execution", "remove-cell", "nbval-ignore-output"}


@pytest.mark.parametrize("chapter", chapters(), ids=lambda p: p.stem)
def test_widget_cells_are_skipped_by_the_book_and_removed_from_its_pages(chapter):
    """A cell that displays ipywidgets may block nbclient until the cell timeout (jupyter/nbclient#312):
    the book build skips it and the page leaves it out; nbval still runs it (CONTRIBUTING.md)."""
    for cell in convert(chapter).cells:
        if cell.cell_type == "code" and "ipywidgets" in cell.source:
            assert WIDGET_CELL_TAGS <= set(cell.metadata.get("tags", [])), cell.source[:80]
            assert "def " not in cell.source, "functions that a static figure reuses must live in an executed cell"


PAGE_WIDTH = 88  # characters of code a page shows without sideways scrolling (CONTRIBUTING.md)


@pytest.mark.parametrize("chapter", chapters(), ids=lambda p: p.stem)
def test_code_shown_on_a_page_fits_its_width(chapter):
    """Every line of a code cell the page shows (hidden input included: a reader can open it) fits the page."""
    long = [f"{line[:60]}... ({len(line)} characters)"
            for cell in convert(chapter).cells
            if cell.cell_type == "code" and not {"remove-cell", "remove-input"} & set(cell.metadata.get("tags", []))
            for line in cell.source.splitlines() if len(line) > PAGE_WIDTH]
    assert not long, f"{len(long)} code lines wider than {PAGE_WIDTH} characters: {long[:5]}"


@pytest.mark.parametrize("chapter", chapters(), ids=lambda p: p.stem)
def test_text_output_shown_on_a_page_fits_its_width(chapter):
    """Every line a shown cell prints fits the page; full reports go behind a hide-output toggle."""
    hidden = {"hide-output", "remove-output", "remove-cell"}
    long = [f"{line[:60]}... ({len(line)} characters)"
            for cell in nbformat.read(twin(chapter), as_version=4).cells
            if cell.cell_type == "code" and not hidden & set(cell.metadata.get("tags", []))
            for output in cell.get("outputs", []) if output.get("output_type") == "stream"
            for line in output.get("text", "").splitlines() if len(line) > PAGE_WIDTH]
    assert not long, f"{len(long)} printed lines wider than {PAGE_WIDTH} characters: {long[:5]}"


@pytest.mark.parametrize("chapter", chapters(), ids=lambda p: p.stem)
def test_every_figure_shown_has_a_name_and_a_caption(chapter):
    """A cell that shows a figure carries mystnb figure metadata (name, caption), so the text can
    {numref} it; one figure per cell, since the metadata names one."""
    unnamed = []
    for cell in nbformat.read(twin(chapter), as_version=4).cells:
        images = sum("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
        removed = {"remove-output", "remove-cell"} & set(cell.metadata.get("tags", []))
        if cell.cell_type != "code" or not images or removed:
            continue
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        if images > 1 or not (figure.get("name") and figure.get("caption")):
            unnamed.append(cell.source[:60])
    assert not unnamed, f"figures without a name and caption (or several in one cell): {unnamed}"


@pytest.mark.parametrize("chapter", chapters(), ids=lambda p: p.stem)
def test_every_figure_shown_is_shown_through_the_legibility_check(chapter):
    """A cell that shows a figure calls ``plotting.show``, which refuses text under 8 pt on the page, or a
    function of the notebook that does."""
    code = [c for c in nbformat.read(twin(chapter), as_version=4).cells if c.cell_type == "code"]
    showing = {name for c in code if "plotting.show(" in c.source for name in re.findall(r"def (\w+)\(", c.source)}
    calls = re.compile(r"plotting\.show\(" + "".join(rf"|\b{name}\(" for name in showing))
    unchecked = []
    for cell in code:
        images = any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
        if images and not calls.search(cell.source):
            unchecked.append(cell.source[:60])
    assert not unchecked, f"figures shown without plotting.show: {unchecked}"


def test_a_change_of_prose_updates_the_twin_without_execution(monkeypatch):
    import notebook_twins

    chapter = chapters()[0]
    assert nbformat.writes(notebook_twins.with_prose_of(chapter)) + "\n" == twin(chapter).read_text(encoding="utf-8")
    source = convert(chapter)
    first_markdown = next(c for c in source.cells if c.cell_type == "markdown")
    first_markdown.source += "\n\nA new sentence."
    monkeypatch.setattr(notebook_twins, "convert", lambda c: source)
    assert "A new sentence." in notebook_twins.with_prose_of(chapter).cells[source.cells.index(first_markdown)].source
    next(c for c in source.cells if c.cell_type == "code").source += "\nx = 1"
    with pytest.raises(ValueError, match="code cells changed"):
        notebook_twins.with_prose_of(chapter)


@pytest.mark.parametrize("chapter", chapters(), ids=lambda p: p.stem)
def test_the_first_code_cell_says_what_to_do_without_nnproofs(chapter):
    """A notebook downloaded without the library stops at its first cell with the way to install it."""
    import os
    import subprocess
    import sys

    code = [cell for cell in convert(chapter).cells if cell.cell_type == "code"]
    if not code:
        pytest.skip("no code on this page")
    guard = code[0]
    assert "remove-cell" in guard.metadata.get("tags", [])  # the page has its "Run this page" box instead
    # Without site-packages (-S) nnproofs cannot be imported: the cell must exit with the instructions.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-S", "-c", guard.source], capture_output=True, text=True, check=False,
                          env=env)
    assert done.returncode == 1 and "ModuleNotFoundError" not in done.stderr
    assert "make lab" in done.stderr and "%pip install -e" in done.stderr
