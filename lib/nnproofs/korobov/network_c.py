"""Chapter 2, Network C (``thm-korobov-sobolev``, :math:`d = 1`, :math:`m = 2`): Network B and its half-cell shift glued by a partition of unity.

The partition vanishes on the bands of each local network, so Network C has no bands and its derivative
error falls like :math:`(WL)^{-2}` everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from ..gadgets import sawtooth, yarotsky_product
from ..measure import network_gradient
from ..networks import architecture
from .bit_table import PROBE_BAND
from .network_b import SuperApproximationNetwork
from .sizes import MAX_BITS, require_sizes, require_stored_bits


class PartitionedNetwork(nn.Module):
    """Network C in :math:`d = 1`, :math:`m = 2` (``thm-korobov-sobolev``): two local networks glued by a partition of unity.

    :math:`\\phi_0` is Network B (:class:`SuperApproximationNetwork`), whose bands lie just left of the
    cell boundaries :math:`kh`; :math:`\\phi_1` is its half-cell shift (``shifted=True``), whose bands
    lie just left of the mid-cells :math:`(k - \\tfrac12)h`. With Yarotsky's sawtooth
    :math:`g_{n+1}(x) = 1 - |2\\{Kx\\} - 1|` (:func:`nnproofs.gadgets.sawtooth`, :math:`K` teeth, exact),

    .. math:: g_0 = \\min(\\max(2g_{n+1} - \\tfrac12, 0), 1), \\qquad g_1 = 1 - g_0,

    so :math:`g_0 = 0` within :math:`h/8` of every boundary and :math:`g_1 = 0` within :math:`h/8` of
    every mid-cell: each local network is used only where it has no band. The output is
    :math:`\\Phi = \\sum_\\nu 2M\\,\\tilde\\times_t\\big(g_\\nu, \\tfrac{\\phi_\\nu + M}{2M}\\big) - M g_\\nu`
    (:math:`M` the larger clip level), and :math:`\\tilde\\times_t(0, \\cdot) = 0` exactly, so the bands
    vanish from :math:`\\Phi` and its derivative: :math:`\\Phi` is continuous and piecewise linear.

    Derivative error. :math:`\\Phi' - f' = \\sum_\\nu g_\\nu(\\phi_\\nu - f)' + g_\\nu'(\\phi_\\nu - f)` up
    to the products: the first term is the interpolant's :math:`O(K^{-1})`, the second
    :math:`|g'| \\le 4K` times :math:`O(K^{-2})`, and the products' derivative error
    :math:`2\\cdot 2^{-t}(|g'| + |\\psi'|)` times :math:`2M` needs :math:`t = 2n + 9 + \\lceil\\log_2 M\\rceil`
    (``t``); the local networks use products of depth :math:`n + 4`, as Network B does for
    :math:`W^1`. Float64 limits the size: :math:`g_{n+1}(x)` keeps about :math:`53 - n` bits of
    :math:`x`, so the inputs of the products are dyadic of level about :math:`51 - n`; when that is
    below :math:`t` every input sits on a kink of Yarotsky's pieces, where the derivative is a
    convention of the ReLU (:math:`\\rho'(0) = 0`), and :math:`|g'| = 4K` amplifies it. The class refuses
    :math:`t + n + 2 > 53`, which allows :math:`WL \\le 64` (:math:`K \\le 2^{12}`). Off the bands of both local networks
    :math:`|\\Phi - I_n f| \\le` ``error_bound`` (the larger local bound plus :math:`4M\\,4^{-t}`).
    Resources: the two local networks and the partition side by side (the width of each at its
    widest, an upper bound), then the two products with :math:`g_\\nu` carried beside them.
    """

    def __init__(self, f: Callable, *, W: int, L: int, shift: bool = True):
        super().__init__()
        self.W, self.L, self.m = W, L, 2
        level = 2 * int(round(math.log2(W * L)))
        self.local = nn.ModuleList([SuperApproximationNetwork(f, m=2, W=W, L=L, product_depth=level + 4),
                                    SuperApproximationNetwork(f, m=2, W=W, L=L, product_depth=level + 4, shifted=shift)])
        self.K, self.level, self.interpolant = self.local[0].K, level, self.local[0].interpolant
        self.clip_level = max(net.clip_level for net in self.local)
        self.t = 2 * level + 9 + max(0, math.ceil(math.log2(self.clip_level)))
        if self.t + level + 2 > MAX_BITS[torch.float64]:
            raise ValueError(f"W*L={W * L} is too large for Network C in float64: g(x) = sawtooth(Kx) keeps about "
                             f"{MAX_BITS[torch.float64] - level - 2} bits of x, fewer than the depth t={self.t} of its "
                             f"products, so every input lands on a kink of their pieces; allowed: W*L <= 64")
        device = self.interpolant.points.device
        self.sawtooth = sawtooth(level + 1, device=device)
        self.product = yarotsky_product(self.t, device=device)
        self.error_bound = max(net.error_bound for net in self.local) + 4 * self.clip_level * 4.0**-self.t
        self.stored_bits = sum(net.stored_bits for net in self.local)
        teeth, product = architecture(self.sawtooth), architecture(self.product)
        side = max(net.depth for net in self.local)
        partition = teeth.depth + 1  # the sawtooth, then the clip to [0, 1]
        self.depth = side + product.depth + 1
        self.width = max(sum(net.width for net in self.local) + max(teeth.width, 2), 2 * product.width + 2)
        carries = sum(side - net.depth for net in self.local) + (side - partition)  # shorter parts carry their output
        self.nonzero_parameters = (sum(net.nonzero_parameters for net in self.local) + teeth.nonzero_parameters + 4
                                   + carries + 2 * product.nonzero_parameters + 2 * product.depth + 6)

    def partition(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`(g_0, g_1)` at ``x`` ``(n, 1)``: ``(n, 2)``."""
        tooth = self.sawtooth(x)[:, 0]
        g0 = torch.relu(2 * tooth - 0.5) - torch.relu(2 * tooth - 1.5)
        return torch.stack([g0, 1 - g0], dim=1)

    def forward(self, x: torch.Tensor, band: float | None = None) -> torch.Tensor:
        """:math:`\\Phi(x)` for ``x`` ``(n, 1)`` in :math:`[0, 1]` (``band``: probe width for the local networks' bands)."""
        g = self.partition(x)
        out = torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)
        M = self.clip_level
        for nu, net in enumerate(self.local):
            psi = (net.evaluate(x, band)[0] + M) / (2 * M)
            out = out + 2 * M * self.product(torch.stack([g[:, nu], psi], dim=1))[:, 0] - M * g[:, nu]
        return out

    def gradient(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\Phi'(x)`, ``(n, 1)``, by automatic differentiation (everywhere: :math:`\\Phi` has no bands)."""
        return network_gradient(self, x)

    def band_samples(self, *, boundaries: int = 31, samples: int = 9, band: float = PROBE_BAND) -> torch.Tensor:
        """Points ``(n, 1)`` across every band of both local networks, at ``boundaries`` of their boundaries each.

        For the local networks probed with band width ``band`` (:func:`band_profile` explains why
        :math:`2^{-46}` cannot be sampled): ``samples`` offsets across each of the four stages' band
        widths, left of the boundaries :math:`kh` (:math:`\\phi_0`) and :math:`(k - \\tfrac12)h` (:math:`\\phi_1`).
        """
        points = []
        fractions = torch.linspace(0, 1, samples, dtype=torch.float64)
        cells = torch.unique(torch.linspace(1, self.K - 1, min(boundaries, self.K - 1)).round())
        for net in self.local:
            shift = 0.5 if net.shifted else 0.0
            offsets = (fractions[:, None] * net.band_widths(band).cpu()).reshape(-1).unique()
            edges = (cells - shift) / self.K
            points.append((edges[:, None] - offsets[None, :]).reshape(-1))
        x = torch.cat(points).clamp(0, 1)
        return x[:, None].to(self.interpolant.points.device)



def partitioned_network(f: Callable, *, W: int, L: int, shift: bool = True) -> PartitionedNetwork:
    """Network C (:class:`PartitionedNetwork`) for ``f`` on :math:`[0, 1]`, nominal ``W``, ``L`` as for Network B.

    ``shift=False`` (negative control) makes the second local network an unshifted copy of the
    first, so its bands fall where :math:`g_1 = 1`.
    """
    require_sizes(W, L)
    if not isinstance(shift, bool):
        raise TypeError(f"shift must be a bool, got {shift!r}")
    level = 2 * int(round(math.log2(W * L)))
    require_stored_bits(4 * (W * L) ** 2 * 3 * min(2 * level + 8, MAX_BITS[torch.float64]), W, L, 1)
    if not callable(f):
        raise TypeError(f"f must be a callable mapping (n, 1) tensors to (n,) values, got {type(f).__name__}")
    return PartitionedNetwork(f, W=W, L=L, shift=shift)

