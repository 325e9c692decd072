"""Fused evaluation of Network A: the active copy of every level, unrolled and compiled by numba.

:func:`fused_network_a` returns ``x -> Φ(x)`` for Network A
(:class:`nnproofs.korobov.ReLUSparseGridNetwork`) whose active copy is evaluated through ``template``,

.. math:: \\Phi(x) = \\sum_{\\mathbf l} v_{\\mathbf l, \\mathbf i(x)}\\, T\\big(2^{\\mathbf l} x - \\mathbf i(x)\\big),

one term per level :math:`\\mathbf l` (``eq-network-a-bound`` bounds its distance to :math:`I_n f`),
:math:`\\mathbf i(x)` the index of the one basis function of that level whose support can contain
:math:`x`, :math:`i_j = 2 c_j + 1` with :math:`c_j = \\min(\\lfloor 2^{l_j - 1} x_j \\rfloor, 2^{l_j - 1} - 1)`
(as :meth:`nnproofs.korobov.SparseGridInterpolant.active_basis`).

How. The template's layers :math:`h \\mapsto \\rho(W h + b)` are written out as straight-line Python,
one statement per unit with only its nonzero weights (:func:`template_source`; the weights are
exact float literals), inside a loop over a block of points, and the whole loop (local coordinates,
every layer, the surplus-weighted sum) is compiled once by numba (LLVM), ``parallel=False``: one
thread, float64, no intermediate tensors. LLVM vectorises the unrolled template across the points of
a block. It tunes Intel's AVX-512 CPUs for 256-bit vectors by default; where the CPU has AVX-512 and
numba's CPU features are not set already (``NUMBA_CPU_FEATURES``), :func:`numba_engine` asks for the
host's features without that preference, for the whole process (512-bit vectors, twice the lanes
and registers). The same weights, local coordinates and surpluses as the eager pass, summed in
another order (and with fused multiply-adds): the values agree with it to float64 rounding.

numba is optional: without it :func:`fused_network_a` raises :class:`FusedUnavailable` (a
``ModuleNotFoundError`` naming the package) and the eager torch pass stays the only path.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from .networks import affine_maps
from .validate import positive_int

POINT_BLOCK = 512  # points per block: the local coordinates and partial sums of a block stay in the L1 cache

_KERNEL = '''
def network_a(xt, halves, offsets, strides, surpluses, block, out):
    n = xt.shape[1]
    t = np.empty(({d}, block))
    index = np.empty(block, np.int64)
    value = np.empty(block)
    total = np.empty(block)
    for start in range(0, n, block):
        m = min(block, n - start)
        total[:m] = 0.0
        for k in range(halves.shape[0]):
            index[:m] = offsets[k]
            for j in range({d}):
                half = halves[k, j]
                stride = strides[k, j]
                for p in range(m):
                    x = xt[j, start + p]
                    cell = min(np.floor(x * half), half - 1.0)
                    t[j, p] = x * (2.0 * half) - (2.0 * cell + 1.0)
                    index[p] += np.int64(cell) * stride
            for p in range(m):
{template}
            for p in range(m):
                total[p] += surpluses[index[p]] * value[p]
        out[start : start + m] = total[:m]
'''


class FusedUnavailable(ModuleNotFoundError):
    """numba, the engine of the fused path, is not installed."""


def numba_engine():
    """The ``numba`` module, set for 512-bit vectors on AVX-512 CPUs (module docstring); :class:`FusedUnavailable` without it."""
    try:
        import numba
        import llvmlite.binding as llvm
    except ImportError as error:
        raise FusedUnavailable("the fused path needs numba (pip install numba); the eager torch pass needs nothing more",
                               name="numba") from error
    features = llvm.get_host_cpu_features()
    if numba.config.CPU_FEATURES is None and numba.config.CPU_NAME is None and features.get("avx512f"):
        numba.config.CPU_NAME = llvm.get_host_cpu_name()
        numba.config.CPU_FEATURES = features.flatten() + ",-prefer-256-bit"
    return numba


def template_source(template: nn.Module, d: int) -> tuple[list[str], str]:
    """``(statements, output)``: ``template`` on inputs ``t0 .. t{d-1}`` as straight-line Python, one statement per unit.

    Unit ``i`` of layer ``k`` is ``h{k}_{i} = max(w·h + b, 0.0)`` over its nonzero weights only
    (``w · h`` written ``h`` when ``w = 1``, ``+ b`` left out when ``b = 0``: both exact); the last
    layer has no ReLU. ``output`` names the template's one output.
    """
    maps = affine_maps(template, "template")
    if maps[0][0].shape[1] != d or maps[-1][0].shape[0] != 1:
        raise ValueError(f"template must map R^{d} to R, got R^{maps[0][0].shape[1]} -> R^{maps[-1][0].shape[0]}")
    names = [f"t{j}" for j in range(d)]
    statements = []
    for k, (w, b) in enumerate(maps):
        w, b = w.detach().cpu().to(torch.float64).numpy(), b.detach().cpu().to(torch.float64).numpy()
        units = []
        for i in range(w.shape[0]):
            terms = [names[c] if w[i, c] == 1.0 else f"{w[i, c]!r} * {names[c]}" for c in np.flatnonzero(w[i])]
            if b[i] != 0.0 or not terms:
                terms = [f"({' + '.join(terms)})" if terms else "", repr(float(b[i]))]
            affine = " + ".join(term for term in terms if term)
            units.append(f"h{k}_{i}")
            statements.append(f"{units[-1]} = {affine}" if k == len(maps) - 1 else f"{units[-1]} = max({affine}, 0.0)")
        names = units
    return statements, names[0]


def fused_network_a(interpolant, template: nn.Module, *, block: int = POINT_BLOCK) -> Callable[[torch.Tensor], torch.Tensor]:
    """``x -> Φ(x)`` (module docstring) for float64 ``x`` ``(n, d)`` in :math:`[0, 1]^d` on the CPU; returns ``(n,)``.

    ``interpolant`` is the :class:`~nnproofs.korobov.SparseGridInterpolant` (levels, surpluses) and
    ``template`` maps local coordinates in :math:`[-1, 1]^d` to one value (Network A's active copy,
    pruned or not). Raises :class:`FusedUnavailable` without numba. Compiling takes seconds (about a
    second per hundred units of the template), once per network.
    """
    numba = numba_engine()
    block = positive_int("block", block)
    d = interpolant.d
    statements, output = template_source(template, d)
    lines = [f"t{j} = t[{j}, p]" for j in range(d)] + statements + [f"value[p] = {output}"]
    namespace = {"np": np}
    exec(_KERNEL.format(d=d, template="\n".join(16 * " " + line for line in lines)), namespace)  # generated above, numbers only
    kernel = numba.njit(parallel=False, fastmath={"contract"})(namespace["network_a"])
    halves = np.exp2(interpolant.levels.cpu().numpy().astype(np.float64) - 1.0)  # 2^(l_j - 1), exact
    offsets = interpolant.offsets.cpu().numpy().astype(np.int64)
    strides = interpolant.strides.cpu().numpy().astype(np.int64)
    surpluses = interpolant.surpluses.detach().cpu().to(torch.float64).numpy()
    kernel(np.zeros((d, 1)), halves, offsets, strides, surpluses, block, np.empty(1))  # compile now, not at the first call

    def forward(x: torch.Tensor) -> torch.Tensor:
        if isinstance(x, torch.Tensor) and x.device.type != "cpu":
            raise ValueError(f"x must be on the CPU for the fused path (numba), got device {x.device}")
        x = interpolant.validate_points(x)
        if x.dtype != torch.float64:
            raise TypeError(f"x must be float64 like the network's weights, got {x.dtype}")
        out = np.empty(x.shape[0])
        kernel(x.detach().T.contiguous().numpy(), halves, offsets, strides, surpluses, block, out)
        return torch.from_numpy(out)

    return forward
