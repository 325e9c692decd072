"""Chapter 2, the classical baselines of Network B: what the same accuracy costs without bit extraction.

:func:`classical_relu_interpolant` is the piecewise-linear interpolant on :math:`K` cells with one hidden
layer; :func:`network_b_overtakes` extrapolates where Network B's nonzero parameters fall below it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from .. import device as book_device
from ..measure import evaluate_target
from ..networks import relu_network
from ..validate import positive_int
from .sizes import MAX_BASE, MAX_BITS, require_sizes, require_smoothness


MAX_CLASSICAL_CELLS = 1 << 20  # cells (hidden neurons) of the one-hidden-layer baseline


def classical_relu_interpolant(f: Callable, *, K: int) -> nn.Sequential:
    """The classical baseline: the piecewise-linear interpolant of ``f`` on ``K`` cells, one hidden ReLU layer.

    :math:`\\Phi(x) = f(0) + \\sum_{k=0}^{K-1} c_k\\,\\rho(x - k/K)`, :math:`c_0` the slope on the first cell and
    :math:`c_k` the change of slope at :math:`k/K`: width :math:`K`, depth 1, :math:`3K + 1` parameters.

    Parameters
    ----------
    f : callable
        The target, mapping an ``(n, 1)`` float64 tensor to ``(n,)`` values.
    K : int
        The number of cells (hidden neurons), at most ``MAX_CLASSICAL_CELLS``.

    Returns
    -------
    torch.nn.Sequential
        ``Linear(1, K)``, ``ReLU``, ``Linear(K, 1)``, float64.

    Examples
    --------
    >>> from nnproofs import korobov, networks
    >>> net = korobov.classical_relu_interpolant(korobov.korobov_example(1), K=16)
    >>> networks.architecture(net).parameters
    49

    Notes
    -----
    For :math:`K = 2^n` it is the level-:math:`n` hat interpolant, the function that Network B stores for
    :math:`m = 2`: at equal :math:`K` both have the same error, up to Network B's quantisation and products.
    """
    positive_int("K", K)
    if K > MAX_CLASSICAL_CELLS:
        raise ValueError(f"K={K} exceeds {MAX_CLASSICAL_CELLS} hidden neurons; allowed: 1..{MAX_CLASSICAL_CELLS}")
    if not callable(f):
        raise TypeError(f"f must be a callable mapping (n, 1) tensors to (n,) values, got {type(f).__name__}")
    device = book_device.device()
    nodes = torch.arange(K + 1, dtype=torch.float64, device=device) / K
    values = evaluate_target(f, nodes[:, None])
    slopes = values.diff() * K
    changes = torch.cat([slopes[:1], slopes.diff()])
    return relu_network([(torch.ones(K, 1, dtype=torch.float64, device=device), -nodes[:-1]),
                         (changes[None, :], values[:1])])


def network_b_overtakes(nonzero: int, W: int, L: int, m: int = 2, *, largest: int = 1 << 20) -> dict:
    """Extrapolated: the smallest :math:`W = L = 2^j` where Network B has fewer nonzero parameters than the classical network.

    Parameters
    ----------
    nonzero : int
        Network B's nonzero parameters, counted at the size ``W``, ``L``.
    W, L : int
        That size (powers of two).
    m : int, optional
        The smoothness order of that Network B.
    largest : int, optional
        The largest :math:`W = L` tried.

    Returns
    -------
    dict
        ``"c"`` the fitted constant; ``"W = L"``, ``"WL"``, ``"K"`` at the first crossing (``None`` if none up to
        ``largest``); ``"sides"`` :math:`W, 2W, \\dots` and ``"nonzero law"`` the law there.

    Examples
    --------
    >>> from nnproofs import korobov
    >>> korobov.network_b_overtakes(10**6, 8, 8)["W = L"]
    2048

    Notes
    -----
    The lookup dominates Network B's parameters: about :math:`c\\,PW^2L` with :math:`P = mJ` bit-planes,
    :math:`J = \\min(mn + 8, 53)`, :math:`n = \\log_2 K`, compared with the classical :math:`3K + 1`. The constant
    :math:`c` is fitted at the given size and decreases with the size, so the law overstates larger networks.
    """
    positive_int("nonzero", nonzero)
    if positive_int("largest", largest) > MAX_BASE**4:
        raise ValueError(f"largest={largest}: W = L is extrapolated up to {MAX_BASE**4} at most")
    require_sizes(W, L)
    require_smoothness(m)

    def planes(W_: int, L_: int) -> int:
        return m * min(m * 2 * round(math.log2(W_ * L_)) + 8, MAX_BITS[torch.float64])

    c = nonzero / (planes(W, L) * W * W * L)
    sides, law, side = [], [], W
    while side <= largest:
        sides.append(side)
        law.append(c * planes(side, side) * side**3)
        if law[-1] < 3 * side**4 + 1:
            return {"c": c, "W = L": side, "WL": side * side, "K": side**4, "sides": sides, "nonzero law": law}
        side *= 2
    return {"c": c, "W = L": None, "WL": None, "K": None, "sides": sides, "nonzero law": law}
