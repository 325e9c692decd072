"""Chapter 2: Networks B and C written out as ReLU networks, layer by layer.

:func:`explicit_network_b`, :func:`explicit_sparse_network_b` and :func:`explicit_network_c` build the
networks that :class:`nnproofs.korobov.network_b.SuperApproximationNetwork`,
:class:`nnproofs.korobov.network_b_sparse.SparseSuperApproximationNetwork` (:math:`d \\ge 2`) and
:class:`nnproofs.korobov.network_c.PartitionedNetwork` evaluate, as :class:`ExplicitNetwork` objects
(:mod:`nnproofs.korobov.layered`): every neuron a ReLU of an affine map of the previous layer, every value
that a later layer needs carried by one ReLU per layer. Their width, depth and nonzero parameters are
counted on these maps. The layer plan, in the order of the chapter:

1. *cell location*: per floor stage of base :math:`b > 1`, three layers: the pairs
   :math:`\\rho(z + 1), \\rho(z)` with :math:`z = (b r - j)/\\delta`, the steps :math:`\\rho(\\text{difference})`
   and the remainder :math:`\\rho(b r - \\sum_j \\text{steps})`. Three, not one, so that no float64 sum
   mixes the large pre-activations :math:`\\sim 2^{52}` with the remainder: every layer is exact off the
   bands, whatever order a matrix product sums in;
2. *lookup*: per :math:`\\beta < L` the gates :math:`\\rho(t_\\rho + e_\\beta - 1)`, then the gated products
   :math:`\\rho(\\pm D + g - 1)`, the words accumulated in the next layer;
3. *bit extraction*: two layers per digit (:math:`a_j`, :math:`b_j`) with the word :math:`y_j` carried and
   the digit of row :math:`q_4` selected, then one layer for the last digit and one gathering the
   coefficients :math:`\\hat c_e`;
4. *recombination*: Yarotsky's products (fused with the values they read), the clip.

In :math:`d \\ge 2` the binary digits of every coordinate come first (three layers per digit), then each
level's table (steps 1-4 above, read at its cell index, an affine map of the digits) beside its hat product.
Building is cheap: in :math:`d = 2` at :math:`W = L = 8` (78 levels, 1.2 million nonzero parameters) about
4 s and 0.6 GB, so every size of the chapter is counted on its weights.
"""

from __future__ import annotations

import torch

from ..networks import affine_maps
from .layered import ExplicitNetwork, LayeredNetwork, Values, side_by_side


def _layer(builder: LayeredNetwork, name: str, new: list[Values], carried: dict[str, Values]):
    """A layer of the neurons ``new`` with every value of ``carried`` (non-negative) carried beside them."""
    groups = builder.layer(name, *new, *carried.values())
    return groups[: len(new)], dict(zip(carried, groups[len(new):]))


def _floor(builder: LayeredNetwork, name: str, r: Values, base: int, band: float, carried: dict[str, Values]):
    """Steps :math:`[b r \\ge j]`, ``j = 1..b-1``, and the remainder :math:`b r - \\sum_j [b r \\ge j]`, in three layers."""
    if base == 1:
        return r[[]], r, carried
    j = torch.arange(1, base, dtype=torch.float64, device=r.weight.device)
    z = ((r * base).combine(torch.ones(base - 1, 1)) - j) * (1.0 / band)
    (plus, minus), carried = _layer(builder, f"{name}: pairs", [z + 1, z], {**carried, "r": r})
    (steps,), carried = _layer(builder, f"{name}: steps", [plus - minus], carried)
    previous = carried.pop("r")
    (remainder,), carried = _layer(builder, f"{name}: remainder", [previous * base - steps.sum()],
                                   {**carried, name: steps})
    return carried.pop(name), remainder, carried


def _indicators(steps: Values, count: int) -> Values:
    """:math:`[q = \\beta] = S_\\beta - S_{\\beta+1}` for :math:`\\beta` below ``count``, with :math:`S_0 = 1`, :math:`S_{count} = 0`."""
    matrix = torch.zeros(count, count - 1, dtype=torch.float64)
    for beta in range(count):
        if beta >= 1:
            matrix[beta, beta - 1] = 1.0
        if beta <= count - 2:
            matrix[beta, beta] = -1.0
    first = torch.zeros(count, dtype=torch.float64, device=steps.weight.device)
    first[0] = 1.0
    return steps.combine(matrix) + first


def _read_table(builder: LayeredNetwork, table, r: Values, band: float) -> tuple[Values, Values]:
    """Steps 1-4 of :class:`nnproofs.korobov.bit_table.BitTable` at ``r``: the coefficients :math:`\\hat c` and :math:`\\tau`."""
    W, L, P, J, E = table.W, table.L, table.P, table.J, table.E
    s, r, carried = _floor(builder, "floor 1 (W)", r, W, band, {})
    t, r, carried = _floor(builder, "floor 2 (W)", r, W, band, {"s": s, **carried})
    q3, r, carried = _floor(builder, "floor 3 (L)", r, L, band, {"t": t, **carried})
    q4, tau, carried = _floor(builder, "floor 4 (L)", r, L, band, {"q3": q3, **carried})
    carried = {"s": carried["s"], "t": carried["t"], "q3": carried["q3"], "q4": q4, "tau": tau}
    words = None
    sums = torch.block_diag(*[torch.ones(1, W, dtype=torch.float64)] * P)  # sum over rho per plane
    for beta in range(L):
        last = beta == L - 1
        e = _indicators(carried["q3"], L)[beta]
        if words is not None:
            carried["words"] = words
        keep = {k: v for k, v in carried.items() if not (last and k == "t")}
        (gates,), carried = _layer(builder, f"lookup {beta + 1}: gates",
                                   [carried["t"] + e.combine(torch.ones(W - 1, 1)) - 1], keep)
        e = _indicators(carried["q3"], L)[beta]
        columns = table.lookup[beta].permute(0, 2, 1).reshape(P * W, W)  # (p, rho) x j
        difference = carried["s"].combine(columns[:, 1:]) + columns[:, 0]
        g = Values.cat(e, gates)[torch.arange(W).repeat(P).tolist()]
        keep = {k: v for k, v in carried.items() if not (last and k in ("s", "t", "q3"))}
        (plus, minus), carried = _layer(builder, f"lookup {beta + 1}: gated products",
                                        [difference + g - 1, -difference + g - 1], keep)
        words = plus.combine(sums) - minus.combine(sums) + (carried.pop("words") if "words" in carried else 0)
    q4, tau = carried["q4"], carried["tau"]
    ones = torch.ones(P, 1, dtype=torch.float64)
    y, b, selected = words, None, None
    for j in range(L):
        scale = 2.0 ** (L - j)
        keep_y = j + 1 < L
        new = {"a": (y * scale - scale / 2 + 1) if b is None else (y * (2 * scale) + b * scale - 1.5 * scale + 1)}
        if keep_y:
            new["y"] = y if b is None else (y * 2 + b - 1)
        if b is not None:
            new["sel"] = _indicators(q4, L)[j - 1].combine(ones) - b
        if selected is not None:
            new["selected"] = selected
        groups, rest = _layer(builder, f"bit {j + 1}: a", list(new.values()), {"q4": q4, "tau": tau})
        values = dict(zip(new, groups))
        q4, tau = rest["q4"], rest["tau"]
        new = {"b": 1 - values["a"]}
        if keep_y:
            new["y"] = values["y"]
        if "sel" in values:
            new["selected"] = values["sel"] + values.get("selected", 0)
        groups, rest = _layer(builder, f"bit {j + 1}: b", list(new.values()), {"q4": q4, "tau": tau})
        values = dict(zip(new, groups))
        q4, tau = rest["q4"], rest["tau"]
        y, b, selected = values.get("y"), values["b"], values.get("selected")
    last = _indicators(q4, L)[L - 1].combine(ones) - b
    groups, rest = _layer(builder, "last digit", [last] + ([selected] if selected is not None else []), {"tau": tau})
    theta = groups[0] + (groups[1] if selected is not None else 0)
    weights = torch.block_diag(*[torch.exp2(-torch.arange(1.0, J + 1, dtype=torch.float64))[None]] * E)
    (c_hat,), rest = _layer(builder, "coefficients", [theta.combine(weights)], {"tau": rest["tau"]})
    return c_hat, rest["tau"]


def explicit_network_b(network, band: float | None = None) -> ExplicitNetwork:
    """Network B in :math:`d = 1` (:class:`nnproofs.korobov.network_b.SuperApproximationNetwork`) as an :class:`ExplicitNetwork`.

    ``band`` replaces the width :math:`\\delta` of the bands (default the network's). The same function as
    ``network.evaluate`` in exact arithmetic; in float64 equal to it off the bands up to the rounding of
    the products and the recombination.
    """
    band = network.band if band is None else band
    builder = LayeredNetwork(1, device=network.table.lookup.device)
    x = builder.inputs()
    r = (x + 0.5 / network.K) * 0.25 if network.shifted else x
    c_hat, tau = _read_table(builder, network.table, r, band)
    lo, span = network.table.lo.cpu(), network.table.span.cpu()
    c = [c_hat[e] for e in range(network.table.E)]
    if network.shifted:
        (kink,), rest = _layer(builder, "kink 2 rho(tau - 1/2)", [tau * 2 - 1], {"c": c_hat, "tau": tau})
        c = [rest["c"][e] for e in range(3)]
        (p1, p2), (c0, tau, kink) = builder.gadgets("products c_1 tau, c_2 kink",
                                                    [(network.product, Values.cat(c[1], rest["tau"])),
                                                     (network.product, Values.cat(c[2], kink))],
                                                    [c[0], rest["tau"], kink])
        out = c0 * float(span[0]) + float(lo[0]) + tau * float(lo[1]) + p1 * float(span[1]) + kink * float(lo[2]) \
            + p2 * float(span[2])
    elif network.m == 2:
        (p1,), (c0, tau) = builder.gadgets("product c_1 tau", [(network.product, Values.cat(c[1], tau))], [c[0], tau])
        out = c0 * float(span[0]) + float(lo[0]) + tau * float(lo[1]) + p1 * float(span[1])
    else:
        (square, p1), (c0, c2, tau) = builder.gadgets("square tau, product c_1 tau",
                                                      [(network.square, tau), (network.product, Values.cat(c[1], tau))],
                                                      [c[0], c[2], tau])
        (p2,), (c0, tau, square, p1) = builder.gadgets("product c_2 tau^2", [(network.product, Values.cat(c2, square))],
                                                       [c0, tau, square, p1], signed=[False, False, False, True])
        out = c0 * float(span[0]) + float(lo[0]) + tau * float(lo[1]) + p1 * float(span[1]) \
            + square * float(lo[2]) + p2 * float(span[2])
    M = network.clip_level
    (upper, lower) = builder.layer("clip", out + M, out - M)
    return builder.finish(upper - lower - M)


def _digits(builder: LayeredNetwork, x: Values, n: int, band: float) -> dict[str, Values]:
    """Remainders ``r0..r{n-1}`` and digits ``b1..b{n-1}`` of every coordinate: per digit the floor stage of base 2
    in three layers (pairs, step, remainder :math:`r_t = \\rho(2r_{t-1} - b_t)`), every value found carried."""
    kept = {"r0": x}
    for t in range(1, n):
        z = (kept[f"r{t - 1}"] * 2 - 1) * (1.0 / band)
        (plus, minus), kept = _layer(builder, f"digit {t}: pairs", [z + 1, z], kept)
        (step,), kept = _layer(builder, f"digit {t}: step", [plus - minus], kept)
        (remainder,), kept = _layer(builder, f"digit {t}: remainder", [kept[f"r{t - 1}"] * 2 - step],
                                    {**kept, f"b{t}": step})
        kept[f"r{t}"] = remainder
    return kept


def _stack(inner: ExplicitNetwork, outer: ExplicitNetwork) -> ExplicitNetwork:
    """``outer`` applied to the outputs of ``inner``: ``inner``'s output map fused into ``outer``'s first map."""
    (w_out, b_out), (w_in, b_in) = inner.maps[-1], outer.maps[0]
    fused = (torch.sparse.mm(w_in, w_out.to_dense()).to_sparse(), torch.sparse.mm(w_in, b_out[:, None])[:, 0] + b_in)
    return ExplicitNetwork(inner.maps[:-1] + [fused] + outer.maps[1:], inner.names + outer.names)


def explicit_sparse_network_b(network) -> ExplicitNetwork:
    """Network B in :math:`d \\ge 2` (:class:`nnproofs.korobov.network_b_sparse.SparseSuperApproximationNetwork`) as an :class:`ExplicitNetwork`.

    The digits of every coordinate (:func:`_digits`); then, side by side, per level :math:`\\mathbf l` its
    table read at :math:`k_{\\mathbf l}/K'_{\\mathbf l}` (an affine map of the digits, steps 1-4 as in
    :math:`d = 1`) and its template :math:`T_{\\mathbf l}` at :math:`t_j = 2r_{j, l_j - 1} - 1`, the shallower
    carrying their outputs; then the products :math:`\\tilde\\times_s(\\hat c_{\\mathbf l}, T_{\\mathbf l})` with
    :math:`T_{\\mathbf l}` carried, the sum and the clip. The same function as ``network.evaluate`` in exact
    arithmetic; in float64 equal to it off the bands up to the rounding of the products and the sum.
    """
    d, n, band = network.d, network.level, network.band
    device = network.strides.device
    builder = LayeredNetwork(d, device=device)
    kept = _digits(builder, builder.inputs(), n, band)
    order = [f"r{t}" for t in range(n)] + [f"b{t}" for t in range(1, n)]  # rows (t d + j) of r_t, (n + t - 1) d + j of b_t
    digits = builder.finish(Values.cat(*[kept[name] for name in order]))
    blocks, names = [], []
    for k, (level, table) in enumerate(zip(network.interpolant.levels.tolist(), network.tables)):
        builder = LayeredNetwork(len(order) * d, device=device)
        inputs = builder.inputs()
        weight = torch.zeros(1, len(order) * d, dtype=torch.float64, device=device)
        for j, l_j in enumerate(level):  # k_l / K'_l = sum_j stride_j sum_{t < l_j} b_{j,t} 2^(l_j - 1 - t) / K'_l
            for t in range(1, l_j):
                weight[0, (n + t - 1) * d + j] = 2.0 ** (l_j - 1 - t) * float(network.strides[k, j]) / table.K
        c_hat, _ = _read_table(builder, table, Values(weight, weight.new_zeros(1)), band)
        blocks.append(builder.finish(c_hat))
        builder = LayeredNetwork(len(order) * d, device=device)
        inputs = builder.inputs()
        local = Values.cat(*[inputs[(l_j - 1) * d + j] for j, l_j in enumerate(level)]) * 2 - 1
        (shape,), _ = builder.gadgets("template", [(network.template, local)])
        blocks.append(builder.finish(shape))
        names += [f"level {tuple(level)}: table", f"level {tuple(level)}: template"]
    builder, values = LayeredNetwork.resume(_stack(digits, side_by_side(*blocks, names=names)))
    count = len(network.tables)
    products, shapes = builder.gadgets("products c_l T_l", [(network.product, Values.cat(values[2 * k], values[2 * k + 1]))
                                                            for k in range(count)], [values[2 * k + 1] for k in range(count)])
    out = None
    for table, product, shape in zip(network.tables, products, shapes):
        term = shape * float(table.lo[0]) + product * float(table.span[0])
        out = term if out is None else out + term
    M = network.clip_level
    (upper, lower) = builder.layer("clip", out + M, out - M)
    return builder.finish(upper - lower - M)


def explicit_network_c(network) -> ExplicitNetwork:
    """Network C (:class:`nnproofs.korobov.network_c.PartitionedNetwork`) as an :class:`ExplicitNetwork`.

    The two local networks (outputs :math:`\\psi_\\nu = (\\phi_\\nu + M)/(2M) \\in [0, 1]`) and the partition
    (Yarotsky's sawtooth, then :math:`g_0 = \\rho(2g - \\tfrac12) - \\rho(2g - \\tfrac32)`, :math:`g_1 = 1 - g_0`) side
    by side, the shallower carrying their outputs; then :math:`\\tilde\\times_t(g_\\nu, \\psi_\\nu)` and
    :math:`\\Phi = \\sum_\\nu 2M\\tilde\\times_t(g_\\nu, \\psi_\\nu) - Mg_\\nu`.
    """
    M = network.clip_level
    locals_ = []
    for net in network.local:
        builder, phi = LayeredNetwork.resume(explicit_network_b(net))
        locals_.append(builder.finish((phi + M) * (1.0 / (2 * M))))
    builder, tooth = LayeredNetwork.resume(_sequential(network.sawtooth))
    (upper, lower) = builder.layer("partition clip", tooth * 2 - 0.5, tooth * 2 - 1.5)
    g0 = upper - lower
    partition = builder.finish(Values.cat(g0, 1 - g0))
    joined = side_by_side(*locals_, partition, names=["phi_0", "phi_1", "partition"])
    builder, values = LayeredNetwork.resume(joined)
    product = network.product
    (p0, p1), (g0, g1) = builder.gadgets("products g_nu psi_nu",
                                         [(product, Values.cat(values[2], values[0])),
                                          (product, Values.cat(values[3], values[1]))], [values[2], values[3]])
    return builder.finish(p0 * (2 * M) + p1 * (2 * M) - g0 * M - g1 * M)


def _sequential(net) -> ExplicitNetwork:
    """A ``Sequential(Linear, ReLU, ..., Linear)`` as an :class:`ExplicitNetwork`."""
    maps = affine_maps(net)
    return ExplicitNetwork(maps, [f"sawtooth {i + 1}" for i in range(len(maps) - 1)])
