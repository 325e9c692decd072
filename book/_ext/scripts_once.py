"""Each script once per page.

sphinx-thebe (which Jupyter Book 1 always loads) adds its configuration script at ``env-before-read-docs``,
and in this build that event comes twice, so every page declared ``const THEBE_JS_URL`` twice and the
browser logged "Identifier 'THEBE_JS_URL' has already been declared". This handler keeps the first of any
scripts that are the same file with the same attributes (an inline script's body is one of them).
"""


def _key(script):
    """What makes two scripts the same: the file and the attributes (an inline script's body), not the priority;
    an inline script's file is ``None`` or ``""``, which are the same."""
    attributes = getattr(script, "attributes", {}) or {}
    return str(getattr(script, "filename", script) or ""), tuple(sorted((k, str(v)) for k, v in attributes.items()))


def once_each(app, pagename, templatename, context, doctree):
    """Drop repeated entries of the page's ``script_files``, in place, keeping the first of each."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for script in scripts:
        if _key(script) not in seen:
            seen.add(_key(script))
            kept.append(script)
    scripts[:] = kept


def setup(app):
    app.connect("html-page-context", once_each, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
