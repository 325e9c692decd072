"""Every chapter page leads to its executed notebook, the committed twin ``notebooks/<stem>.ipynb``.

* The page's download menu offers ".ipynb" (sphinx-book-theme shows that entry when the page context
  names an ``ipynb_source``); the twin is copied into the build's ``_sources`` folder.
* One setting publishes the book: once ``repository.url`` in ``_config.yml`` names a GitHub repository,
  the repository button turns on and every chapter gets an "Open in Colab" button for its twin on
  ``repository.branch`` (Colab cannot open the MyST sources in ``book/``).
"""

import shutil
from pathlib import Path

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


def setup(app):
    app.connect("config-inited", repository_button_when_published)
    # Before the theme builds the download menu (priority 501), and after it built the header buttons.
    app.connect("html-page-context", offer_twin, priority=400)
    app.connect("html-page-context", colab_button, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
