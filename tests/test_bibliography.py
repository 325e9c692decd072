"""book/references.bib as the bibliography page renders it (sphinxcontrib-bibtex formats it with pybtex): one label
style, and every entry linked to where a reader can find it."""

import re
from pathlib import Path

import pytest
import yaml
from pybtex.backends.html import Backend
from pybtex.database import parse_file
from pybtex.plugin import find_plugin

ROOT = Path(__file__).resolve().parents[1]
BIB = ROOT / "book" / "references.bib"
# Entries without any public address (the note says so); each is named here with the reason.
UNPUBLISHED = {"baturin2026barrier": "the preprint's text and address were not available to the authors"}
# alpha labels: three letters of a single author's name, or the initials of up to four authors ("+" for more),
# then the year's last two digits and a letter that separates one author's papers of one year
LABEL = re.compile(r"([A-Z][a-z]{2}|[A-Z]{2,4}\+?)\d{2}[a-z]?")


def rendered() -> dict[str, tuple[str, str]]:
    """``{key: (label, html)}`` of every entry, in the style the book's configuration names."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    name = config.get("sphinx", {}).get("config", {}).get("bibtex_default_style", "alpha")
    style = find_plugin("pybtex.style.formatting", name)()
    return {entry.key: (entry.label, entry.text.render(Backend()))
            for entry in style.format_bibliography(parse_file(BIB))}


@pytest.fixture(scope="module")
def entries():
    return rendered()


def test_every_label_has_the_same_form(entries):
    odd = {key: label for key, (label, _) in entries.items() if not LABEL.fullmatch(label)}
    assert not odd, f"labels outside the alpha form: {odd} (write accented names in Unicode, not TeX)"


def test_every_entry_links_to_its_source(entries):
    unlinked = sorted(key for key, (_, html) in entries.items() if "<a href=" not in html and key not in UNPUBLISHED)
    assert not unlinked, f"entries without eprint, url or doi: {unlinked}"
    plain_ids = sorted(key for key, (_, html) in entries.items()
                       if re.search(r"(?<![/>])arXiv:\d{4}\.\d{4,5}", html))
    assert not plain_ids, f"arXiv ids in plain text (give them as eprint = {{...}}, archiveprefix = {{arXiv}}): {plain_ids}"
    assert set(UNPUBLISHED) <= set(entries)


def test_every_citation_of_the_book_is_an_entry(entries):
    cited = {key.strip() for page in (ROOT / "book").glob("*.md")
             for keys in re.findall(r"\{cite[a-z:]*\}`([^`]+)`", page.read_text(encoding="utf-8"))
             for key in keys.split(",")}
    assert cited and cited <= set(entries), sorted(cited - set(entries))
