"""Chapter 2, lemma ``lem-point-fitting``: a table of coefficients stored as bits and read by ReLU layers.

Steps 1-4 of Network B (:mod:`nnproofs.korobov.network_b`): floor stages locate the row, the bits of its
coefficients are stored as words of :math:`L` bits, read by gated products and extracted digit by digit
(:mod:`nnproofs.korobov.bits`).
"""

from __future__ import annotations

import torch
from torch import nn

from ..validate import positive_int
from .bits import complement_bits
from .sizes import BAND, MAX_BITS, MAX_STORED_BITS, require_sizes

PROBE_BAND = 2.0**-30  # band_profile looks into the bands on a copy with this width, wide enough to sample
READ_BLOCK = 1 << 18  # entries of one layer's gated products read at once (2 MiB, about a core's cache): faster than 8 MiB


def floor_stage(r: torch.Tensor, base: int, band: float = BAND) -> tuple[torch.Tensor, torch.Tensor]:
    """Steps :math:`[u \\ge j]`, ``j = 1..base-1``, of :math:`u = \\text{base}\\cdot r`, and :math:`u - \\lfloor u \\rfloor`.

    One ReLU layer: :math:`[u \\ge j] = \\rho((u-j)/\\delta + 1) - \\rho((u-j)/\\delta)`, exact off the
    bands :math:`(j - \\delta, j)` (:math:`\\delta` = ``BAND`` :math:`= 2^{-46}`); with ``base`` a power
    of two at most 64 every operation is exact in float64 (:math:`|z| < 2^{52}`, so :math:`z + 1` is
    exact). The bands are as thin as float64 allows: their share of an :math:`L_p` error is
    :math:`O(\\delta^{1/p})`, which the theorem makes negligible by taking :math:`\\delta` small.
    """
    u = base * r
    j = torch.arange(1, base, dtype=r.dtype, device=r.device)
    z = (u[:, None] - j) / band
    steps = torch.relu(z + 1) - torch.relu(z)
    return steps, torch.relu(u - steps.sum(dim=1))


def gated_product(D: torch.Tensor, shifted: torch.Tensor) -> torch.Tensor:
    """:math:`\\rho(D + g - 1) - \\rho(-D + g - 1)` for ``shifted`` :math:`= g - 1 \\in [-1, 0]`, as :math:`D - \\mathrm{clamp}(D, g - 1, 1 - g)`.

    The ReLU pair of :class:`BitTable`'s lookup (:math:`D g` for a gate :math:`g \\in \\{0, 1\\}` and
    :math:`|D| \\le 1`) is the soft threshold of :math:`D` at :math:`1 - g`; evaluated so it takes two passes over
    ``(points, P, W)`` instead of five. For :math:`g - 1 \\le 0` both forms give :math:`D + (g - 1)`,
    :math:`D - (g - 1)` or an exact 0, by the same single rounding, so they agree bit for bit (a test),
    at fractional gates in the bands too; every gate lies in :math:`[0, 1]` (a step, a difference of
    ordered steps, or :math:`\\rho` of a step plus such a difference less one, with monotone rounding).
    Under automatic differentiation the ReLU pair itself is evaluated (its backward pass is the cheaper
    one, and the derivative is then the pair's, also at the kinks).
    """
    if D.requires_grad or shifted.requires_grad:
        return torch.relu(D + shifted) - torch.relu(shifted - D)
    return D - torch.clamp(D, min=shifted, max=-shifted)


def indicators(steps: torch.Tensor) -> torch.Tensor:
    """One-hot :math:`[q = \\beta] = S_\\beta - S_{\\beta+1}` (linear) from the steps :math:`S_\\beta = [q \\ge \\beta]`."""
    ones = steps.new_ones(steps.shape[0], 1)
    padded = torch.cat([ones, steps, torch.zeros_like(ones)], dim=1)
    return padded[:, :-1] - padded[:, 1:]


class BitTable(nn.Module):
    """Steps 1-4 of Network B: a table of :math:`K = (WL)^2` rows of :math:`E` coefficients, stored as bits and read by ReLU layers.

    Row :math:`k` is read at :math:`r \\in [0, 1)` with :math:`k = \\lfloor K r \\rfloor`:

    1. *cell location* — four floor stages (:func:`floor_stage`) of bases :math:`W, W, L, L` give
       the digits :math:`k = ((q_1 W + q_2) L + q_3) L + q_4` as step features and the remainder
       :math:`\\tau = Kr - k`, exact off bands of total measure :math:`\\le 4\\delta` (none at all when
       :math:`r` is a multiple of :math:`1/K`);
    2. *quantisation* — each coefficient :math:`c_{k,e}` is stored with :math:`J` bits,
       :math:`c_{k,e} \\approx lo_e + span_e \\sum_{t=1}^{J} \\theta_{k,e,t} 2^{-t}`;
    3. *lookup* — for each of the :math:`P = EJ` bit-planes the words
       :math:`T(q_1, q_2, q_3) = \\sum_{q_4} \\theta_{k} 2^{-(q_4+1)}` (:math:`W^2 L` words of
       :math:`L` bits) are read by :math:`L` serial blocks: with steps :math:`s_j = [q_1 \\ge j]`,
       :math:`t_\\rho = [q_2 \\ge \\rho]` and :math:`e_\\beta = [q_3 = \\beta]`,
       :math:`T = \\sum_\\beta\\sum_\\rho D_{\\rho\\beta}(s)\\,(t_\\rho \\wedge e_\\beta)` where
       :math:`D_{\\rho\\beta}` is linear in :math:`s` (double differences of the table) and the
       gating :math:`D g = \\rho(D + g - 1) - \\rho(-D + g - 1)` is exact for :math:`|D| \\le 1`;
    4. *bit extraction* — digit :math:`q_4` of each word (:func:`complement_bits`, AND with
       :math:`[q_4 = j]`), then :math:`\\hat c_e = \\sum_t \\theta_{k,e,t}2^{-t} \\in [0, 1]`.

    Off the bands :math:`|lo_e + span_e \\hat c_e - c_{k,e}| \\le span_e 2^{-J}` (``quantisation_bound``
    sums these over :math:`e`); ``stored_bits`` :math:`= PK`.
    """

    def __init__(self, coefficients: torch.Tensor, *, W: int, L: int, J: int):
        super().__init__()
        require_sizes(W, L)
        positive_int("J", J)
        if J > MAX_BITS[torch.float64]:
            raise ValueError(f"J={J} exceeds the 53 bits of a float64 word; allowed: 1..53")
        if not isinstance(coefficients, torch.Tensor) or coefficients.ndim != 2 or coefficients.dtype != torch.float64:
            raise TypeError(f"coefficients must be a float64 (K, E) tensor, got "
                            f"{getattr(coefficients, 'dtype', type(coefficients).__name__)} "
                            f"{tuple(getattr(coefficients, 'shape', ()))}")
        K, E = coefficients.shape
        if K != (W * L) ** 2:
            raise ValueError(f"coefficients must have (W*L)^2 = {(W * L) ** 2} rows, got {K}")
        if K * E * J > MAX_STORED_BITS:
            raise ValueError(f"W={W}, L={L}: {K} rows of {E} coefficients with J={J} bits are {K * E * J} stored bits; "
                             f"allowed: at most {MAX_STORED_BITS} (lower W or L)")
        self.W, self.L, self.J, self.K, self.E, self.P = W, L, J, K, E, E * J
        device = coefficients.device
        lo = coefficients.min(dim=0).values
        span = coefficients.max(dim=0).values - lo
        span = torch.where(span > 0, span, torch.ones_like(span))
        scaled = (coefficients - lo) / span * 2.0**J
        codes = torch.clamp(torch.floor(scaled + 0.5), max=2.0**J - 1).to(torch.int64)
        shifts = torch.arange(J - 1, -1, -1, device=device)
        planes = ((codes[:, :, None] >> shifts) & 1).reshape(K, self.P).to(torch.float64)  # theta_{k,(e,t)}
        digits = torch.exp2(-torch.arange(1, L + 1, dtype=torch.float64, device=device))
        words = (planes.reshape(W, W, L, L, self.P) * digits[None, None, None, :, None]).sum(dim=3)  # (q1, q2, q3, p)
        along_q2 = torch.cat([words[:, :1], words[:, 1:] - words[:, :-1]], dim=1)
        along_q1 = torch.cat([along_q2[:1], along_q2[1:] - along_q2[:-1]], dim=0)  # A[j, rho, beta, p]
        self.register_buffer("lookup", along_q1.permute(2, 3, 0, 1).contiguous())  # (beta, p, j, rho)
        self.register_buffer("lo", lo)
        self.register_buffer("span", span)
        self.stored_bits = self.P * K
        self.quantisation_bound = float(span.sum()) * 2.0**-J

    def locate(self, r: torch.Tensor, band: float = BAND) -> tuple[tuple[torch.Tensor, ...], torch.Tensor, torch.Tensor]:
        """Step 1 at ``r`` ``(n,)``: the steps of the four floor stages, the remainder :math:`\\tau` and the band mask ``(n,)``.

        A point is in a band when some step lies strictly between 0 and 1.
        """
        stages = []
        for base in (self.W, self.W, self.L, self.L):
            stage, r = floor_stage(r, base, band)
            stages.append(stage)
        in_band = torch.zeros_like(r, dtype=torch.bool)
        for stage in stages:
            in_band |= ((stage > 0) & (stage < 1)).any(dim=1)
        return tuple(stages), r, in_band

    def read(self, r: torch.Tensor, band: float = BAND) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:math:`\\hat c` ``(n, E)`` in :math:`[0, 1]`, the remainder :math:`\\tau` ``(n,)`` and the band mask ``(n,)`` at ``r`` ``(n,)``.

        Evaluated in blocks of points so that a layer's gated products, ``(points, P, W)``, hold at
        most ``READ_BLOCK`` entries; the gated products by :func:`gated_product`.
        """
        size = max(1, READ_BLOCK // (self.P * self.W))
        if r.shape[0] > size:
            parts = [self.read(r[start : start + size], band) for start in range(0, r.shape[0], size)]
            return tuple(torch.cat(column) for column in zip(*parts))
        W, L = self.W, self.L
        (s_steps, t_steps, q3_steps, q4_steps), tau, in_band = self.locate(r, band)
        s = torch.cat([torch.ones_like(tau)[:, None], s_steps], dim=1)
        e3 = indicators(q3_steps)
        words = torch.zeros(r.shape[0], self.P, dtype=r.dtype, device=r.device)
        for beta in range(L):
            gates = torch.cat([e3[:, beta : beta + 1], torch.relu(t_steps + e3[:, beta : beta + 1] - 1)], dim=1)
            table = (s @ self.lookup[beta].transpose(0, 1).reshape(W, -1)).reshape(-1, self.P, W)  # D(s)
            shifted = (gates - 1)[:, None, :]  # g - 1
            gated = gated_product(table, shifted)
            words = torch.relu(words + gated.sum(dim=-1))
        e4 = indicators(q4_steps)
        selected = torch.zeros_like(words)
        for j, b in enumerate(complement_bits(words, L)):
            selected = selected + torch.relu(e4[:, j : j + 1] - b)  # theta_j AND [q4 = j]
        weights = torch.exp2(-torch.arange(1, self.J + 1, dtype=r.dtype, device=r.device))
        return selected.reshape(-1, self.E, self.J) @ weights, tau, in_band

    def layout(self, input_bias: bool = False, input_weights: int = 1) -> list[tuple[str, int, int, int]]:
        """``(layer, 1, neurons, nonzero parameters)`` of every hidden layer of steps 1-4, as built by
        :func:`nnproofs.korobov.explicit.explicit_network_b`, up to the layer gathering :math:`\\hat c`.

        The layout arithmetic: a neuron's nonzero parameters are the previous-layer neurons it reads plus
        a nonzero bias. Per floor stage of base :math:`b > 1`: :math:`2(b-1)` pairs (a weight and a bias
        each), :math:`b - 1` steps (two reads each), the remainder (:math:`b` reads); every step found so
        far and :math:`r` are carried, one read each. The first stage reads :math:`r` as an affine map of
        the previous layer with ``input_weights`` nonzero weights (one: the input :math:`x`; in
        :math:`d \\ge 2` the digits of a level's cell index) and, with ``input_bias``, a nonzero bias
        (:math:`r = (x + h/2)/4`). Per lookup block: :math:`W - 1` gates reading :math:`t_\\rho`,
        the steps of :math:`[q_3 = \\beta]` and a bias for :math:`\\beta > 0`; :math:`2WP` gated products
        reading the nonzero double differences :math:`A` of their column, their gate and a nonzero bias
        (counted on :math:`A`); the words accumulated where they are next carried. Per digit two layers,
        then the last digit and the coefficients :math:`\\hat c_e` (:math:`J` or :math:`2J` reads).
        """
        W, L, P, J, E = self.W, self.L, self.P, self.J, self.E
        layers: list[tuple[str, int, int, int]] = []

        def layer(name: str, *groups: tuple[int, int]) -> None:  # groups of (neurons, nonzero parameters)
            layers.append((name, 1, sum(g[0] for g in groups), sum(g[1] for g in groups)))

        found, weights = 0, input_weights  # step neurons carried so far; weights with which r reads the layer
        r_reads = weights + int(input_bias)  # reads of the carried r
        for name, base in (("floor 1 (W)", W), ("floor 2 (W)", W), ("floor 3 (L)", L), ("floor 4 (L)", L)):
            if base == 1:
                continue
            layer(f"{name}: pairs", (2 * (base - 1), 2 * (base - 1) * (weights + 1)), (1, r_reads), (found, found))
            layer(f"{name}: steps", (base - 1, 2 * (base - 1)), (1, 1), (found, found))
            layer(f"{name}: remainder", (1, base), (base - 1, base - 1), (found, found))
            found, weights, r_reads = found + base - 1, 1, 1
        for beta in range(L):
            last = beta == L - 1
            e_weights = int(beta >= 1) + int(beta <= L - 2)  # steps S3 in [q3 = beta] = S3_beta - S3_(beta+1)
            steps = [(W - 1, W - 1)] + ([(W - 1, W - 1)] if not last else []) + [(L - 1, L - 1)] * 2 + [(1, 1)]
            words = [(P, P * (2 * W + int(beta >= 2)))] if beta >= 1 else []
            layer(f"lookup {beta + 1}: gates", (W - 1, (W - 1) * (1 + e_weights + int(beta > 0))), *steps, *words)
            A = self.lookup[beta]  # (P, j, rho)
            gate_bias = torch.zeros(W, dtype=A.dtype, device=A.device)
            gate_bias[0] = float(beta == 0)
            biases = int(((A[:, 0, :] + gate_bias - 1) != 0).sum()) + int(((-A[:, 0, :] + gate_bias - 1) != 0).sum())
            products = 2 * (int((A[:, 1:, :] != 0).sum()) + P * (W - 1) + P * e_weights) + biases
            kept = [(L - 1, L - 1), (1, 1)] if last else [(W - 1, W - 1)] * 2 + [(L - 1, L - 1)] * 2 + [(1, 1)]
            layer(f"lookup {beta + 1}: gated products", (2 * W * P, products), *kept,
                  *([(P, P)] if beta >= 1 else []))
        tail = ((L - 1, L - 1), (1, 1))  # q4 steps, tau
        for j in range(L):  # digit j + 1
            keep_y = [(P, P)] if j + 1 < L else []
            if j == 0:
                reads = 2 * W + int(L >= 2)  # the words: the last block's products and the carried sum
                layer("bit 1: a", (P, P * (reads + int(L >= 2))), *[(P, P * reads) for _ in keep_y], *tail)
                layer("bit 1: b", (P, 2 * P), *keep_y, *tail)
                continue
            selection = 1 + int(j >= 2) + int(j <= L - 1) + int(j == 1)  # b_j, steps of [q4 = j - 1], bias
            layer(f"bit {j + 1}: a", (P, 3 * P), *[(P, 3 * P) for _ in keep_y], (P, P * selection),
                  *([(P, P)] if j >= 2 else []), *tail)
            layer(f"bit {j + 1}: b", (P, 2 * P), *keep_y, (P, P * (1 + int(j >= 2))), *tail)
        layer("last digit", (P, 2 * P), *([(P, P)] if L >= 2 else []), (1, 1))  # b_L and [q4 = L - 1]: a step or a bias
        layer("coefficients", (E, E * J * (2 if L >= 2 else 1)), (1, 1))
        return layers
