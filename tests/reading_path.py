"""The reading path of a page (design.md section 4), measured on its MyST source.

Two numbers per page of ``book/``:

* the longest paragraph of the main text, in words. The main text is what a reader sees without a
  click: outside code cells, math blocks and other fences, outside admonitions whose class is
  ``dropdown`` and ``{dropdown}`` directives, outside proofs, and outside the section "How the checks
  decide" (from its heading to the next heading of the same or a higher level);
* the visible code lines: lines of code cells that carry none of the tags ``remove-input``,
  ``remove-cell``, ``hide-input`` or ``hide-cell`` (blank lines not counted).

Run as a script it prints both for every page: ``python tests/reading_path.py``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1] / "book"
HIDDEN_TAGS = {"remove-input", "remove-cell", "hide-input", "hide-cell"}
CLOSING_SECTION = "how the checks decide"
MAX_WORDS = 150  # words in one paragraph of the main text
MAX_CODE_LINES = 120  # visible code lines on one page
_FENCE = re.compile(r"^(`{3,}|:{3,})\s*(\{[^}]*\})?\s*(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^\s*([-*+]|\d+\.)\s+")
_NOT_PROSE = ("$$", "(", "+++", "<!--", "|")  # math, labels, cell breaks, comments, tables


@dataclass(frozen=True)
class Paragraph:
    page: str
    line: int
    words: int
    start: str


def _blocks(lines):
    """Yield ``(kind, name, options, body, first_line)`` for the top-level fences and ``("text", ...)``
    runs between them; a fence closes at a line of the same marker character, at least as long."""
    i, text, text_start = 0, [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None or m.group(1)[0] == ":" and not m.group(2):
            if not text:
                text_start = i
            text.append(lines[i])
            i += 1
            continue
        if text:
            yield "text", "", [], text, text_start
            text = []
        marker, name = m.group(1), (m.group(2) or "").strip("{}")
        j = i + 1
        while j < len(lines) and not (
            lines[j].strip().startswith(marker[0] * len(marker))
            and set(lines[j].strip()) == {marker[0]}
            and len(lines[j].strip()) >= len(marker)
        ):
            j += 1
        body = lines[i + 1 : j]
        options = [b for b in body if b.startswith(":") and not b.startswith("::")]
        if body and body[0].strip() == "---" and "---" in (b.strip() for b in body[1:]):
            # YAML options (a figure's ``mystnb`` metadata): read as ``:key: value`` and not counted as code
            end = 1 + [b.strip() for b in body[1:]].index("---")
            options += [":" + b for b in body[1:end] if ":" in b and not b.startswith(" ")]
            body = body[end + 1 :]
        yield "fence", name, options, body, i
        i = j + 1
    if text:
        yield "text", "", [], text, text_start


def _tags(options):
    for option in options:
        if option.startswith(":tags:"):
            return {t.strip(" '\"") for t in option[len(":tags:"):].strip(" []").split(",")}
    return set()


def _is_folded(name, options):
    if name in {"dropdown", "prf:proof"}:
        return True
    return any(o.startswith(":class:") and "dropdown" in o for o in options)


def _paragraphs(page: str, lines, offset=0):
    in_closing, closing_level = False, 0
    for kind, name, options, body, start in _blocks(lines):
        if kind == "fence":
            # Admonitions and theorem boxes that stay open are main text too.
            if name and not name.startswith("code-cell") and not name.startswith("math") \
                    and not _is_folded(name, options) and not in_closing and name not in {"bibliography", "toctree", "glue:figure", "figure", "raw", "list-table"}:
                inner = [b for b in body if not (b.startswith(":") and not b.startswith("::"))]
                yield from _paragraphs(page, inner, offset + start + 1)
            continue
        paragraph, first = [], 0
        for k, line in enumerate(body + [""]):
            heading = _HEADING.match(line)
            if heading:
                level = len(heading.group(1))
                if in_closing and level <= closing_level:
                    in_closing = False
                if heading.group(2).strip().lower().startswith(CLOSING_SECTION):
                    in_closing, closing_level = True, level
            item = _ITEM.match(line)
            if line.strip() and not heading and not item and not line.startswith(_NOT_PROSE):
                if not paragraph:
                    first = k
                paragraph.append(line)
                continue
            if paragraph and not in_closing:
                words = len(re.sub(r"\{[a-z:-]+\}`[^`]*`", "w", " ".join(paragraph)).split())
                yield Paragraph(page, offset + start + first + 1, words, paragraph[0][:60])
            paragraph = []
            if item:  # a list item starts a paragraph of its own
                first, paragraph = k, [line[item.end():]]


def paragraphs(path: Path):
    """Every paragraph of the main text of one page."""
    lines = path.read_text().split("\n")
    if lines and lines[0].strip() == "---":  # front matter
        end = lines.index("---", 1)
        lines = [""] * (end + 1) + lines[end + 1 :]
    return list(_paragraphs(path.name, lines))


def visible_code_lines(path: Path) -> int:
    """Non-blank lines of the code cells a reader of the HTML sees without a click."""
    lines = path.read_text().split("\n")
    count = 0
    for kind, name, options, body, _ in _blocks(lines):
        if kind == "fence" and name.startswith("code-cell") and not (_tags(options) & HIDDEN_TAGS):
            count += sum(1 for b in body if b.strip() and not (b.startswith(":") and not b.startswith("::")))
    return count


def pages():
    return sorted(p for p in BOOK.glob("*.md"))


if __name__ == "__main__":
    for path in pages():
        longest = max(paragraphs(path), key=lambda p: p.words, default=None)
        print(f"{path.name:36s} code {visible_code_lines(path):4d}  longest paragraph "
              f"{longest.words if longest else 0:4d} words (line {longest.line if longest else 0})")
        for p in paragraphs(path):
            if p.words > MAX_WORDS:
                print(f"    line {p.line}: {p.words} words: {p.start}")
