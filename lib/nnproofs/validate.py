"""Input validation shared by the library: clear errors that name the parameter, the value and what is allowed."""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence

import numpy as np


def _integer(name: str, value, minimum: int, kind: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {kind}, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def positive_int(name: str, value) -> int:
    """``value`` if it is an int >= 1, else a ValueError/TypeError naming ``name``."""
    return _integer(name, value, 1, "a positive int")


def nonnegative_int(name: str, value) -> int:
    """``value`` if it is an int >= 0 (a seed, a count that may be zero), else a ValueError/TypeError naming ``name``."""
    return _integer(name, value, 0, "an int >= 0")


def _sympy_real_number(value) -> bool:
    """Whether ``value`` is a real sympy number (``Rational(1, 3)``, ``sqrt(2)``), without importing sympy."""
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(value, sympy.Basic) and bool(value.is_number) and value.is_real is True


def flag(name: str, value) -> bool:
    """``value`` if it is a bool (numpy's included), else a TypeError naming ``name``: ``"no"`` is not ``False``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def finite_real(name: str, value) -> float:
    """``value`` as a float if it is a finite real number (numpy scalars and real sympy numbers included), else an
    error naming ``name``."""
    if _sympy_real_number(value):
        value = float(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return float(value)


def positive_real(name: str, value) -> float:
    """``value`` as a float if it is a finite real number > 0, else an error naming ``name``."""
    value = finite_real(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return value


def as_finite_array(name: str, values, *, positive: bool = False, min_size: int = 1) -> np.ndarray:
    """``values`` as a 1-D float64 array, or a ValueError naming ``name`` and the offending entry."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of real numbers, got a string")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a sequence of real numbers, got {type(values).__name__}") from error
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size < min_size:
        raise ValueError(f"{name} needs at least {min_size} values, got {array.size}")
    bad = ~np.isfinite(array) | ((array <= 0) if positive else False)
    if bad.any():
        i = int(np.argmax(bad))
        allowed = "finite and > 0" if positive else "finite"
        raise ValueError(f"{name}[{i}] = {array[i]!r}; every entry must be {allowed}")
    return array


def int_list(name: str, values, minimum: int = 1, *, distinct: bool = False) -> list[int]:
    """``values`` as a non-empty list of ints ``>= minimum``, else an error naming ``name``.

    Accepts a sequence, a range or a 1-D numpy array (an integer array, or a float array whose entries are
    all integers); a list or tuple with float entries is read as such a float array, so ``[4.0, 6.0]`` and
    ``np.array([4.0, 6.0])`` are accepted alike and ``[4.5, 6]`` is refused alike. ``distinct=True`` also
    refuses a repeated value.
    """
    if isinstance(values, (list, tuple)) and any(isinstance(v, (float, np.floating)) for v in values) and all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values):
        values = np.asarray(values, dtype=np.float64)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got an array of shape {values.shape}")
        if values.dtype.kind == "f":
            bad = ~np.isfinite(values) | (values != np.round(values))
            if bad.any():
                i = int(np.argmax(bad))
                raise ValueError(f"{name}[{i}] = {values[i]!r} is not an integer; {name} must hold integers")
            values = values.astype(np.int64)
        values = values.tolist()
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, range)):
        raise TypeError(f"{name} must be a sequence of positive ints, got {type(values).__name__}")
    if len(values) == 0:
        raise ValueError(f"{name} must hold at least one value, got an empty {type(values).__name__}")
    values = [positive_int(f"{name}[{i}]", v) for i, v in enumerate(values)]
    low = [v for v in values if v < minimum]
    if low:
        raise ValueError(f"{name} must all be >= {minimum}, got {low}")
    repeated = sorted({v for v in values if values.count(v) > 1})
    if distinct and repeated:
        raise ValueError(f"{name} must not repeat a value (each size is measured once), got {repeated} more than once"
                         f" in {values}")
    return values


def int_at_least(name: str, value, minimum: int) -> int:
    """``value`` if it is an int ``>= minimum`` (not a bool), else a ValueError/TypeError naming ``name`` and the minimum."""
    return _integer(name, value, minimum, f"an int >= {minimum}")
