"""Compiled evaluation of a ReLU network: ``torch.compile`` of the feature-major forward pass.

:func:`compiled_columns` returns ``x -> net(x)`` for a ``Sequential(Linear, ReLU, ..., Linear)``
(:mod:`nnproofs.networks`), evaluated as :func:`nnproofs.networks.forward_columns` does,
:math:`H_\\ell = \\rho(W_\\ell H_{\\ell-1} + b_\\ell)` on blocks of ``block`` inputs, but traced once and
compiled by TorchInductor: on the CPU it generates C++ (built by the system's compiler) that applies each
bias and ReLU to the output of the matrix product (a BLAS call), on CUDA Triton kernels. Every block has the same shape
(the last one is padded with zeros and cut), so one compilation serves every batch. The same products
and sums as the eager pass: the values agree to float64 rounding. Where no compiler works,
:class:`CompileUnavailable` is raised and callers keep the eager pass.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from .networks import COLUMN_BLOCK, affine_maps
from .validate import positive_int


class CompileUnavailable(RuntimeError):
    """``torch.compile`` could not build or run the network on this machine (no C++ compiler, no backend)."""


def compiled_columns(net: nn.Module, *, block: int = COLUMN_BLOCK) -> Callable[[torch.Tensor], torch.Tensor]:
    """``x -> net(x)`` for ``x`` ``(n, in_features)``, compiled once for blocks of ``block`` inputs.

    Raises :class:`CompileUnavailable` (with the compiler's message) when the first compilation, run on
    one block of zeros, fails; the compilation takes seconds to minutes, once per network and device.
    """
    block = positive_int("block", block)
    maps = [(w.contiguous(), b[:, None].contiguous()) for w, b in affine_maps(net)]
    inputs = maps[0][0].shape[1]

    def layers(h: torch.Tensor) -> torch.Tensor:
        for w, b in maps[:-1]:
            h = torch.relu(torch.addmm(b, w, h))
        w, b = maps[-1]
        return torch.addmm(b, w, h)

    compiled = torch.compile(layers, dynamic=False, fullgraph=True)
    try:
        with torch.no_grad():
            compiled(maps[0][0].new_zeros(inputs, block))
    except Exception as error:  # the backend's failures have no common type
        raise CompileUnavailable(f"torch.compile could not build the network: {type(error).__name__}: {error}") from error

    def forward(x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 2 or x.shape[1] != inputs:
            raise ValueError(f"x must have shape (n, {inputs}), got {tuple(x.shape)}")
        out = []
        with torch.no_grad():
            for start in range(0, x.shape[0], block):
                h = x[start : start + block].T
                rows = h.shape[1]
                if rows < block:
                    h = torch.cat([h, h.new_zeros(inputs, block - rows)], 1)
                out.append(compiled(h.contiguous())[:, :rows].T)
        return torch.cat(out) if out else x.new_zeros(0, maps[-1][0].shape[0])

    return forward
