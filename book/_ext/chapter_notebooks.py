"""Every chapter page leads to its executed notebook, the committed twin ``notebooks/<stem>.ipynb``.

* The page's download menu offers ".ipynb" (sphinx-book-theme shows that entry when the page context
  names an ``ipynb_source``); the twin is copied into the build's ``_sources`` folder.
* One setting publishes the book: once ``repository.url`` in ``_config.yml`` names a GitHub repository,
  the repository button turns on and every chapter gets an "Open in Colab" button for its twin on
  ``repository.branch`` (Colab cannot open the MyST sources in ``book/``).
* Every chapter page opens with a "Run this page" box: how to run it from a clone (``make lab``) or in any
  Jupyter (the twin and ``%pip install -e``), and a link to the API reference. The twin's first cell says
  the same when ``nnproofs`` cannot be imported.
"""

import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

COLAB = "https://colab.research.google.com/github"


def twin(app, pagename: str) -> Path | None:
    """The committed notebook of page ``pagename`` (``book/02_korobov`` -> ``notebooks/02_korobov.ipynb``), if any."""
    path = Path(app.srcdir) / "notebooks" / f"{pagename.rsplit('/', 1)[-1]}.ipynb"
    return path if path.is_file() else None


def github_repository(app) -> str | None:
    """``owner/name`` of the configured GitHub repository, or None while the book is unpublished."""
    url = (app.config.html_theme_options.get("repository_url") or "").rstrip("/")
    return url.split("github.com/", 1)[1] if "github.com/" in url else None


def repository_button_when_published(app, config) -> None:
    if github_repository(app):
        config.html_theme_options["use_repository_button"] = True


def offer_twin(app, pagename, templatename, context, doctree) -> None:
    notebook = twin(app, pagename)
    if notebook is None:
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(notebook, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def colab_button(app, pagename, templatename, context, doctree) -> None:
    notebook, repository = twin(app, pagename), github_repository(app)
    if notebook is None or repository is None or "header_buttons" not in context:
        return
    branch = app.config.html_theme_options.get("repository_branch") or "main"
    context["header_buttons"].append({
        "type": "link",
        "url": f"{COLAB}/{repository}/blob/{branch}/notebooks/{notebook.name}",
        "text": "Colab",
        "tooltip": "Open the executed notebook in Colab",
        "icon": "fas fa-rocket",
        "label": "colab-button",
    })


CHAPTER = re.compile(r"^book/\d\d_")


def _paragraph(*parts) -> nodes.paragraph:
    """A paragraph of text, with the parts written ``like this`` set as code."""
    paragraph = nodes.paragraph()
    for part in parts:
        if isinstance(part, nodes.Node):
            paragraph += part
        else:
            for i, piece in enumerate(re.split(r"``", part)):
                if piece:
                    paragraph += nodes.literal(piece, piece) if i % 2 else nodes.Text(piece)
    return paragraph


def run_this_page_box(docname: str) -> nodes.admonition:
    """The "Run this page" box of chapter ``docname`` (folded; it opens on a click)."""
    stem = docname.rsplit("/", 1)[-1]
    api = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/book/api", refexplicit=True,
                                refdoc=docname)
    api += nodes.inline("", "API reference")
    items = nodes.bullet_list()
    for paragraph in (
        _paragraph(f"From a clone of the book's repository: ``make lab`` installs everything into ``.venv`` and "
                   f"opens JupyterLab; open ``book/{stem}.md`` with ", nodes.emphasis("", "Open With → Notebook"), "."),
        _paragraph(f"In any Jupyter, Colab included: download this page as ``.ipynb`` (the download button at the "
                   f"top; it is ``notebooks/{stem}.ipynb`` of the repository), install the library into the "
                   "kernel with ``%pip install -e <your clone>``, restart the kernel and run the notebook. Its first "
                   "cell says what to do when the library is missing."),
        _paragraph("Your own targets: ``import nnproofs`` and call a chapter's checks (", api, ")."),
    ):
        items += nodes.list_item("", paragraph)
    box = nodes.admonition(classes=["tip", "dropdown", "run-this-page"])  # folded: one line until opened
    box += nodes.title("", "Run this page")
    box += _paragraph("Every number on this page was computed by its code when the book was built; "
                      "you can run the same code:")
    box += items
    return box


def insert_run_box(app, doctree) -> None:
    """Put the box after the title of every chapter page (``book/NN_*``), before its first paragraph."""
    docname = app.env.docname
    if not CHAPTER.match(docname):
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    title = next((i for i, child in enumerate(section.children) if isinstance(child, nodes.title)), None)
    section.insert(0 if title is None else title + 1, run_this_page_box(docname))


def setup(app):
    app.connect("doctree-read", insert_run_box)
    app.connect("config-inited", repository_button_when_published)
    # Before the theme builds the download menu (priority 501), and after it built the header buttons.
    app.connect("html-page-context", offer_twin, priority=400)
    app.connect("html-page-context", colab_button, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
