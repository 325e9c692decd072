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

    Here :math:`a = \\mathrm{linspace}(0.3, 1.1, d)`. Smooth, non-separable and zero on
    :math:`\\partial[0,1]^d` (the research notes' test function).
    """
    positive_int("d", d)

    def f(x: torch.Tensor) -> torch.Tensor:
        a = torch.linspace(0.3, 1.1, d, dtype=x.dtype, device=x.device)
        return torch.sin(math.pi * x).prod(dim=1) * (1 + 0.5 * torch.cos(x @ a))

    return f


def basis_sum_target(d: int, level: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """The sum of all basis functions of the level-``level`` grid: a target whose surpluses are all 1.

    .. math:: f = \\sum_{|\\mathbf l|_1 \\le n+d-1} \\sum_{\\mathbf i} \\phi_{\\mathbf l, \\mathbf i}
              = \\sum_{|\\mathbf l|_1 \\le n+d-1} \\prod_j g_{l_j}(x_j).

    By the sawtooth identity :math:`\\sum_{i \\in I_l} \\phi_{l,i} = g_l` (Yarotsky's sawtooth with
    :math:`2^{l-1}` teeth, :func:`nnproofs.gadgets.sawtooth`), the level-``level`` interpolant of
    this target has all surpluses equal to 1: the worst case of Network A's bound, where a
    product that is not zero-preserving leaks :math:`O(2^{-2s})` from each of the :math:`N` copies.
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



