"""The book build waits for a cell's output as long as for the cell, and fails rather than drop it.

A cell's output (iopub) may arrive after its reply (shell). nbclient waits 4 s for it by default and then
goes on without it, with only a warning: on a busy machine a printed line or a glued number would be
missing from the page, and the build would fail later, far from the cause (an unknown glue key), or not at
all. myst-nb creates its ``NotebookClient`` with the cell timeout only, so this extension gives every
client the same limit for the output and makes a late output an error.
"""

import functools

from nbclient import NotebookClient

_init = NotebookClient.__init__


@functools.wraps(_init)
def _patient_init(self, *args, **kwargs):
    timeout = kwargs.get("timeout") or 300
    kwargs.setdefault("iopub_timeout", timeout)
    kwargs.setdefault("raise_on_iopub_timeout", True)
    _init(self, *args, **kwargs)


def setup(app):
    NotebookClient.__init__ = _patient_init
    return {"parallel_read_safe": True, "parallel_write_safe": True}
