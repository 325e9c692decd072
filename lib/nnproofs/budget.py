"""Budgets: every public function estimates its cost from its arguments before it starts, and refuses beyond a
documented budget with an error that names the parameter.

Two budgets, each a multiple of :func:`factor`:

* :data:`WORK` multiply-adds (float64), about a minute of one CPU core: an estimate such as
  points × parameters of a forward pass, or sizes × levels × points of a check, is compared with it;
* :data:`MEMORY` bytes for the largest tensor (or table) a call builds at once.

``factor()`` is 1 at ``BOOK_SCALE=ci`` and :data:`FULL_FACTOR` at ``BOOK_SCALE=full`` (the sizes that a GPU
runs); ``BOOK_BUDGET_FACTOR`` overrides both, for a reader who knows that the machine can do more.

Example
-------
>>> from nnproofs import budget
>>> budget.refuse_beyond("Ks", [4, 5000], cost=8.1e13, limit=budget.work(), unit="multiply-adds")
Traceback (most recent call last):
ValueError: Ks=[4, 5000]: the estimated cost is 8.1e+13 multiply-adds, beyond the budget of 6e+10 ...
"""

from __future__ import annotations

import math
import os
import reprlib

from .device import scale

WORK = 6e10
MEMORY = 4 * 2**30
FULL_FACTOR = 64.0
FACTOR_VARIABLE = "BOOK_BUDGET_FACTOR"

_short = reprlib.Repr()
_short.maxlist = _short.maxtuple = 6
_short.maxstring = _short.maxother = 60


def factor() -> float:
    """The budgets' multiplier: ``BOOK_BUDGET_FACTOR`` if set (a number > 0), else 1 at ci and 64 at full scale."""
    text = os.environ.get(FACTOR_VARIABLE)
    if text is None:
        return FULL_FACTOR if scale() == "full" else 1.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{FACTOR_VARIABLE} must be a finite number > 0, got {text!r}")
    return value


def work() -> float:
    """The work budget in multiply-adds: :data:`WORK` × :func:`factor`."""
    return WORK * factor()


def memory() -> float:
    """The memory budget in bytes: :data:`MEMORY` × :func:`factor`."""
    return MEMORY * factor()


def refuse_beyond(name: str, value, *, cost: float, limit: float, unit: str) -> None:
    """Raise a ``ValueError`` naming ``name``, its value, the estimated ``cost`` and the ``limit`` when
    ``cost > limit`` (or when the cost is not a finite number); return ``None`` otherwise.

    Estimate ``cost`` with Python ints or floats from the arguments alone, before any allocation, so that
    the refusal is immediate however large the request.
    """
    try:
        cost = float(cost)
    except OverflowError:  # an int beyond float range
        cost = math.inf
    if math.isfinite(cost) and cost <= limit:
        return
    raise ValueError(
        f"{name}={_short.repr(value)}: the estimated cost is {cost:.2g} {unit}, beyond the budget of {limit:.2g} "
        f"{unit} ({FACTOR_VARIABLE}={factor():g}); choose a smaller {name}, or raise {FACTOR_VARIABLE} if this "
        f"machine can do more")
