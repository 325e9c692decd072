"""The README names every chapter by the title its page carries (the sidebar's and the intro's)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_chapter_table_uses_the_chapter_titles():
    titles = {}
    # a chapter's first page carries its title (02_korobov before its sections 02_korobov_grids, ...)
    for page in sorted((ROOT / "book").glob("[0-9][0-9]_*.md")):
        titles.setdefault(int(page.name[:2]), next(line[2:].strip() for line in
                                                   page.read_text(encoding="utf-8").splitlines()
                                                   if line.startswith("# ")))
    rows = dict(re.findall(r"^\| (\d) \| ([^|]+?)(?: \([^()|]*\d{4}\))? \|", (ROOT / "README.md").read_text(encoding="utf-8"),
                           flags=re.MULTILINE))
    assert {int(k): v for k, v in rows.items()} == titles
