"""Number the prelude as chapter 0: its boxes and figures read "Theorem 0.1", not "Theorem 1".

The prelude stands in an unnumbered part of the table of contents (the numbered chapters start at 1),
so Sphinx numbers its theorems, definitions and figures 1, 2, ... without a chapter. After Sphinx has
assigned the numbers, this extension prefixes the prelude's with 0, so that a reference from chapter 2
to the prelude's theorem reads "Theorem 0.1" beside chapter 2's own "Theorem 2.1".
"""

PRELUDE = "book/00_prelude"


def number_prelude_as_chapter_zero(app, env):
    """Turn the prelude's figure numbers ``(n,)`` into ``(0, n)``; idempotent."""
    for numbers in env.toc_fignumbers.get(PRELUDE, {}).values():
        for node_id, number in numbers.items():
            if len(number) == 1:
                numbers[node_id] = (0, *number)
    return []


def setup(app):
    # After Sphinx's own numbering (TocTreeCollector, default priority 500).
    app.connect("env-get-updated", number_prelude_as_chapter_zero, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
