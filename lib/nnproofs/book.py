"""Publishing computed numbers into the book's prose.

:func:`glue` hands a number computed in a chapter to MyST-NB's glue, so that the text shows
``{glue:text}`key:.3g``` instead of a typed-in value. It accepts only plain Python numbers and strings:
numpy and torch scalars print as ``np.float64(...)`` / ``tensor(...)`` and break formatted glue.
Floats are rounded to six significant digits before they are glued: the prose shows at most four,
and the glue record is stored in the executed notebook, where the last bits of a measurement near
round-off (an error of 1e-8 computed with weights of 1e10) may differ between runs and machines.
Outside a book build (a plain Jupyter or Colab session without ``myst_nb``) it does nothing, so
chapters run anywhere.
"""

from __future__ import annotations

import math

GLUE_DIGITS = 6


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
    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # not building the book: nothing to glue into
        return
    myst_glue(key, value, display=False)
