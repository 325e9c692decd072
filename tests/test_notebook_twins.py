"""notebooks/ must hold exactly the executed twins of book/[0-9]*.md, in sync with their sources."""

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
    code = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert all(cell.execution_count is not None for cell in code), "every code cell of a twin must have been executed"
