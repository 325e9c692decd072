"""The status page's execution table in words: "ok" and "failed" instead of ✅ and ❌.

myst-nb's ``{nb-exec-table}`` marks each notebook's run with an emoji, which a reader without an emoji
font sees as an empty box. Sphinx builds that table in a post-transform, before ``doctree-resolved``;
this handler then replaces every text node that is exactly one of those marks.
"""

from docutils import nodes

WORDS = {"\N{WHITE HEAVY CHECK MARK}": "ok", "\N{CROSS MARK}": "failed"}


def marks_in_words(app, doctree, docname):
    """Replace each text node that is exactly ✅ or ❌ by its word."""
    for text in list(doctree.findall(nodes.Text)):
        if str(text) in WORDS:
            text.parent.replace(text, nodes.Text(WORDS[str(text)]))


def setup(app):
    app.connect("doctree-resolved", marks_in_words)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
