"""Checked inputs of chapter 1's public functions: errors that name the parameter, the value and what is allowed.

Generic checks (positive ints, finite reals, integer lists) come from :mod:`nnproofs.validate`; this module adds
what the chapter's theorem allows (``k <= 3``, ``d <= 2``, ``K >= 2``, float64) and the probe of a target.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import torch

from .. import device as book_device
from ..validate import int_list

MAX_K = 3  # local degree k <= 3: u^k is one finite difference of order k
MAX_D = 2  # the monomials u^α need one product layer: two factors at most
MAX_SIZES = 64  # entries of a list of sizes (Ks, ns, widths): each is built or trained, so more is never affordable


def _int(name: str, value) -> int:
    """``value`` as an int if it is one (not a bool), else a TypeError naming ``name``; ranges are checked by the caller."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    return int(value)


def degree(k) -> int:
    k = _int("k", k)
    if not 0 <= k <= MAX_K:
        raise ValueError(f"k must be in 0..{MAX_K} (the local degree; u^k is a finite difference of order k,"
                         f" whose float64 round-off grows like eps/delta^k), got {k}")
    return k


def cells(name: str, K) -> int:
    K = _int(name, K)
    if K < 2:
        raise ValueError(f"{name} must be >= 2 (coarse cells per axis, each cut into K fine cells), got {K}")
    return K


def dimension(d) -> int:
    d = _int("d", d)
    if not 1 <= d <= MAX_D:
        raise ValueError(f"d must be 1 or 2 (the monomials u^α need products of at most two factors in one"
                         f" layer), got {d}")
    return d


def float64_only(dtype) -> torch.dtype:
    if dtype != torch.float64:
        raise ValueError(f"dtype={dtype} is not allowed: the construction needs float64 (its gadgets divide by"
                         " δ² ≈ 1e-10 and its steps by slopes ~1e5; float32 loses every digit). Evaluate a float64"
                         " network in float32 only as a negative control: float32_network(...)")
    return dtype


def target(f, d: int, device) -> Callable:
    """``f`` if it maps an ``(n, d)`` float64 tensor to ``n`` finite values; else a clear error."""
    if not callable(f):
        raise TypeError(f"f must be a callable mapping an (n, d) float64 tensor to shape (n,), got {type(f).__name__}")
    probe = torch.linspace(0.0, 1.0, 5 * d, dtype=torch.float64, device=device).reshape(5, d)
    try:
        value = f(probe)
    except IndexError as error:
        raise ValueError(f"f failed on an (n, {d}) tensor ({error}): it must take the d = {d} coordinates x[:, 0]"
                         f"{', x[:, 1]' if d == 2 else ''} only; pass d to the check if f is a function of more") from None
    if not isinstance(value, torch.Tensor) or value.shape != (5,):
        shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
        hint = "; return a 1-D tensor, e.g. f(x)[:, 0] or torch.sin(x[:, 0])" if shape == (5, 1) else ""
        raise ValueError(f"f must map an (n, {d}) tensor to shape (n,); on a (5, {d}) tensor it returned {shape}{hint}")
    if value.dtype != torch.float64:
        raise ValueError(f"f must return float64 values (the check measures errors down to 1e-10), got {value.dtype}")
    finite_values("f", value)
    return f


def finite_values(name: str, values: torch.Tensor) -> torch.Tensor:
    """``values`` if every entry is finite, else a ValueError naming ``name`` and the first bad entry."""
    bad = ~torch.isfinite(values.reshape(-1))
    if bool(bad.any()):
        i = int(bad.nonzero()[0])
        raise ValueError(f"{name} returned a non-finite value ({float(values.reshape(-1)[i])}) at entry {i};"
                         " the target must be finite on [0, 1]^d")
    return values


def short_list(name: str, values, minimum: int, *, distinct: bool = False) -> list[int]:
    """``values`` as ints ``>= minimum`` (:func:`nnproofs.validate.int_list`), refused before they are read one by
    one when there are more than :data:`MAX_SIZES` of them (each entry is a network to build or train)."""
    length = len(values) if isinstance(values, (list, tuple, range)) or getattr(values, "ndim", 0) >= 1 else 0
    if length > MAX_SIZES:
        raise ValueError(f"{name} holds {length} entries; at most {MAX_SIZES} (each one is a network built or trained)")
    return int_list(name, values, minimum, distinct=distinct)


def sizes(name: str, values, minimum: int) -> list[int]:
    """``values`` (a sequence, or a 1-D array of integers) as distinct ints ``>= minimum``, at least two of them."""
    out = short_list(name, values, minimum, distinct=True)
    if len(out) < 2:
        raise ValueError(f"{name} needs at least two distinct values to fit a rate, got {out}")
    return out


def device_of(device) -> torch.device:
    """``device`` as a ``torch.device`` that torch can compute on (``None``: ``BOOK_DEVICE``), else a ValueError."""
    if device is None:
        return book_device.device()
    try:
        out = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"device={device!r} is not a torch device ('cpu', 'cuda', 'cuda:0', ...): {error}") from None
    if out.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if (out.index or 0) >= count:
            raise ValueError(f"device={device!r} is not available: torch sees {count} CUDA device(s); use"
                             f" {'cuda:0..cuda:' + str(count - 1) + ' or ' if count else ''}'cpu'")
    elif out.type != "cpu":
        raise ValueError(f"device={device!r} is not supported; use 'cpu' or 'cuda[:index]'")
    return out
