"""Publishing computed numbers into the book's prose.

:func:`glue` hands a number computed in a chapter to MyST-NB's glue, so that the text shows
``{glue:text}`key:.3g``` instead of a typed-in value. It accepts only plain Python numbers and strings:
numpy and torch scalars print as ``np.float64(...)`` / ``tensor(...)`` and break formatted glue.
Floats are rounded to six significant digits before they are glued: the prose shows at most four,
and the glue record is stored in the executed notebook, where the last bits of a measurement near
round-off (an error of 1e-8 computed with weights of 1e10) may differ between runs and machines.
Outside a kernel (a script) it does nothing, so chapters run anywhere.

The record is the one ``myst_nb.glue(key, value, display=False)`` emits (myst-nb 1.4: display data
under ``GLUE_PREFIX`` with ``scrapbook`` metadata; a test compares the two), written here because
importing ``myst_nb.ext.glue`` imports nbformat's JSON-schema validator, about 3 s of CPU per chapter.
"""

from __future__ import annotations

import math

GLUE_DIGITS = 6
GLUE_PREFIX = "application/papermill.record/"  # myst_nb.ext.glue.GLUE_PREFIX: hidden in the page, read by the build


def glue(key: str, value: float | int | str) -> None:
    """Make ``value`` available to the chapter's text as ``{glue:text}`key```."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a non-empty string, got {key!r}")
    if isinstance(value, bool) or type(value) not in (int, float, str):
        raise TypeError(f"glue {key!r}: value must be a Python int, float or str, got {type(value).__name__};"
                        " convert with float(x) or int(x)")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"glue {key!r}: value must be finite, got {value!r}")
    if isinstance(value, float):
        value = float(f"{value:.{GLUE_DIGITS}g}")
    from IPython import get_ipython

    if get_ipython() is None:  # not in a kernel: nothing to glue into
        return
    from IPython.display import display

    data, metadata = glue_record(key, value)
    display(data, raw=True, metadata=metadata)


def glue_record(key: str, value: float | int | str) -> tuple[dict, dict]:
    """The display data and metadata of ``myst_nb.glue(key, value, display=False)``."""
    from IPython.core.formatters import format_display_data

    bundle, metadata = format_display_data(value)
    metadata["scrapbook"] = {"name": key, "mime_prefix": GLUE_PREFIX}
    return {GLUE_PREFIX + mime: content for mime, content in bundle.items()}, metadata
