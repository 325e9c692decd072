"""The book's Sphinx extensions (book/_ext): the prelude numbered as chapter 0, chapters led to their notebooks,
the execution table in words, a cell's output waited for as long as the cell."""

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import chapter_notebooks  # noqa: E402
import chapter_zero  # noqa: E402
import patient_execution  # noqa: E402
import plain_status  # noqa: E402


def test_prelude_numbers_get_chapter_zero_and_others_stay():
    env = SimpleNamespace(toc_fignumbers={"book/00_prelude": {"theorem": {"thm-a": (1,)}, "figure": {"f": (2,)}},
                                          "book/02_korobov": {"theorem": {"thm-b": (2, 1)}}})
    for _ in range(2):  # idempotent: Sphinx may emit the event more than once
        chapter_zero.number_prelude_as_chapter_zero(None, env)
    assert env.toc_fignumbers == {"book/00_prelude": {"theorem": {"thm-a": (0, 1)}, "figure": {"f": (0, 2)}},
                                  "book/02_korobov": {"theorem": {"thm-b": (2, 1)}}}


def app(tmp_path, url=""):
    return SimpleNamespace(srcdir=str(ROOT), outdir=str(tmp_path),
                           config=SimpleNamespace(html_theme_options={"repository_url": url, "repository_branch": "main"}))


def test_every_chapter_has_a_twin_and_back_matter_has_none(tmp_path):
    chapters = sorted(p.stem for p in (ROOT / "book").glob("[0-9]*.md"))
    assert chapters and all(chapter_notebooks.twin(app(tmp_path), f"book/{c}") for c in chapters)
    assert chapter_notebooks.twin(app(tmp_path), "book/ledger") is None


def test_download_menu_offers_the_committed_twin(tmp_path):
    context = {}
    chapter_notebooks.offer_twin(app(tmp_path), "book/02_korobov", "page.html", context, None)
    assert context["ipynb_source"] == "book/02_korobov.ipynb"
    copied = tmp_path / "_sources" / "book" / "02_korobov.ipynb"
    assert copied.read_bytes() == (ROOT / "notebooks" / "02_korobov.ipynb").read_bytes()


@pytest.mark.parametrize(("url", "colab"), [
    ("", None),
    ("https://gitlab.com/owner/book", None),
    ("https://github.com/owner/book/", "https://colab.research.google.com/github/owner/book/blob/main/notebooks/01_smooth_constant_depth.ipynb"),
])
def test_colab_and_repository_buttons_follow_the_one_setting(tmp_path, url, colab):
    application = app(tmp_path, url)
    context = {"header_buttons": []}
    chapter_notebooks.colab_button(application, "book/01_smooth_constant_depth", "page.html", context, None)
    assert [b["url"] for b in context["header_buttons"]] == ([colab] if colab else [])
    chapter_notebooks.repository_button_when_published(application, application.config)
    assert application.config.html_theme_options.get("use_repository_button", False) is (colab is not None)


def test_execution_marks_become_words_and_other_text_stays():
    from docutils import nodes
    row = nodes.row("", *(nodes.entry("", nodes.paragraph(text=t)) for t in ("book/01", "✅", "❌", "ok ✅")))
    plain_status.marks_in_words(None, row, "book/status")
    assert [entry.astext() for entry in row.children] == ["book/01", "ok", "failed", "ok ✅"]


def test_every_notebook_client_waits_for_output_as_long_as_for_the_cell(monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setattr(NotebookClient, "__init__", NotebookClient.__init__)  # undone after the test
    patient_execution.setup(None)
    client = NotebookClient(nbformat.v4.new_notebook(), timeout=120)
    assert (client.iopub_timeout, client.raise_on_iopub_timeout) == (120, True)
    assert NotebookClient(nbformat.v4.new_notebook(), timeout=120, iopub_timeout=7).iopub_timeout == 7
