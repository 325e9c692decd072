"""Chapter 2: targets of the Korobov class used by the chapter, the tests and the claims.

:func:`korobov_example` is the chapter's smooth, non-separable target, zero on the boundary;
:func:`basis_sum_target` is the sum of all basis functions of a sparse grid, whose surpluses are all 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..gadgets import sawtooth
from ..validate import positive_int
from .sparsegrid import level_multi_indices


def korobov_example(d: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """The chapter's target :math:`f(x) = \\prod_j \\sin(\\pi x_j)\\,(1 + \\tfrac12\\cos(a\\cdot x))`.

    Parameters
    ----------
    d : int
        Dimension; :math:`a = \\mathrm{linspace}(0.3, 1.1, d)`.

    Returns
    -------
    callable
        ``(n, d)`` points to ``(n,)`` values: smooth, not separable, zero on :math:`\\partial[0,1]^d`.

    Examples
    --------
    >>> import torch
    >>> f = korobov_example(2)
    >>> float(f(torch.zeros(1, 2, dtype=torch.float64)))
    0.0
    """
    positive_int("d", d)

    def f(x: torch.Tensor) -> torch.Tensor:
        a = torch.linspace(0.3, 1.1, d, dtype=x.dtype, device=x.device)
        return torch.sin(math.pi * x).prod(dim=1) * (1 + 0.5 * torch.cos(x @ a))

    return f


def basis_sum_target(d: int, level: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """The sum of all basis functions of the level-``level`` grid: a target whose surpluses are all 1.

    Parameters
    ----------
    d : int
        Dimension.
    level : int
        The level :math:`n` of the grid whose basis functions are summed.

    Returns
    -------
    callable
        :math:`f = \\sum_{|\\mathbf l|_1 \\le n+d-1} \\prod_j g_{l_j}(x_j)`, with Yarotsky's sawtooth
        :math:`g_l = \\sum_{i \\in I_l} \\phi_{l,i}` (:func:`nnproofs.gadgets.sawtooth`).

    Notes
    -----
    The worst case of Network A's bound: a product that is not zero-preserving leaks from every copy.

    Examples
    --------
    >>> from nnproofs.korobov import sparse_grid_interpolant
    >>> grid = sparse_grid_interpolant(basis_sum_target(2, 3), d=2, level=3)
    >>> bool((grid.surpluses == 1).all())
    True
    """
    positive_int("d", d)
    positive_int("level", level)
    levels = torch.as_tensor(level_multi_indices(level, d))
    teeth = [sawtooth(l) for l in range(1, level + 1)]

    def f(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            g = torch.stack([torch.cat([net.to(x.device)(x[:, j : j + 1]) for net in teeth], dim=1)
                             for j in range(d)])  # (d, n, level): g_l(x_j)
        columns = (levels - 1).to(x.device)
        total = g[0].index_select(1, columns[:, 0])
        for j in range(1, d):
            total = total * g[j].index_select(1, columns[:, j])
        return total.sum(dim=1)

    return f



