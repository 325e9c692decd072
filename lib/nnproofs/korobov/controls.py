"""Chapter 2, negative controls: constructions with one ingredient of a proof removed or broken.

:func:`clamped_product` is as accurate as Yarotsky's product but not zero-preserving (it breaks Network
A's bound); :func:`interpolant_without_level` drops one increment of the sparse grid (its rate stalls).
The other controls are arguments of the checks: words stored in float32, a fixed number of coefficient
bits, Network B's stored coefficients times :math:`c` (near miss, ``coefficient_scale``), shallow products,
an unshifted second local network of Network C.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import torch
from torch import nn

from ..gadgets import yarotsky_square
from ..networks import compose, linear_map, parallel
from ..validate import int_list
from .sizes import require_length, require_product_depth
from .sparsegrid import SparseGridInterpolant, sparse_grid_interpolant


def clamped_product(s: int) -> nn.Sequential:
    """Negative control: :math:`2 f_s(\\tfrac{a+b}{2}) - \\tfrac12 f_s(a) - \\tfrac12 f_s(b)`.

    Parameters
    ----------
    s : int
        Depth of Yarotsky's square :math:`f_s`.

    Returns
    -------
    nn.Sequential
        A ReLU network of two inputs, accurate to :math:`3\\cdot 2^{-2s-2}` on :math:`[0,1]^2` but not
        zero-preserving: :math:`2 f_s(a/2) - \\tfrac12 f_s(a) \\ne 0` off the dyadic points.

    Examples
    --------
    >>> from nnproofs.korobov.network_a import zero_preserving
    >>> zero_preserving(clamped_product(4))
    False
    """
    square = yarotsky_square(require_product_depth("s", s))
    halves = linear_map([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]])
    combine = linear_map([[2.0, -0.5, -0.5]])
    return compose(combine, compose(parallel(square, square, square), halves))


def interpolant_without_level(f: Callable, *, d: int, level: int, degree: int = 1,
                              dropped: Sequence[int] | None = None) -> SparseGridInterpolant:
    """Negative control: :math:`I_n f` without the increment of one level.

    Parameters
    ----------
    f, d, level, degree
        As for :func:`sparse_grid_interpolant`.
    dropped : sequence of int, optional
        The level multi-index whose surpluses are set to 0; default :math:`(2, 1, \\dots, 1)`.

    Returns
    -------
    SparseGridInterpolant
        The interpolant with that increment removed: its error stalls at the increment's size.

    Examples
    --------
    >>> import torch
    >>> full = sparse_grid_interpolant(lambda x: (4 * x * (1 - x)).prod(1), d=2, level=4)
    >>> cut = interpolant_without_level(lambda x: (4 * x * (1 - x)).prod(1), d=2, level=4)
    >>> int((full.surpluses != cut.surpluses).sum())
    2
    """
    interpolant = sparse_grid_interpolant(f, d=d, level=level, degree=degree)
    if dropped is None:
        dropped = (2,) + (1,) * (d - 1)
    else:
        require_length("dropped", dropped, d)
        dropped = tuple(int_list("dropped", dropped))
    if len(dropped) != d:
        raise ValueError(f"dropped must have d={d} entries, got {dropped}")
    mask = (interpolant.point_levels == torch.tensor(dropped, device=interpolant.point_levels.device)).all(dim=1)
    return dataclasses.replace(interpolant, surpluses=torch.where(mask, 0.0, interpolant.surpluses))

