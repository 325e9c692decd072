"""Interval pruning of ReLU networks: what bound propagation proves idle on a box is removed.

For a network :math:`\\Phi = A_{L+1} \\circ \\rho \\circ A_L \\circ \\cdots \\circ \\rho \\circ A_1`
(:mod:`nnproofs.networks`) and an input box :math:`B = [a, b]`, :func:`preactivation_bounds`
encloses every hidden pre-activation :math:`z_{\\ell, j}(x)`, :math:`x \\in B`, in
:math:`[l_{\\ell, j}, u_{\\ell, j}]` by linear bound propagation: each bound is the extremum over
:math:`B` of a linear function of :math:`x`, obtained by substituting the affine maps backwards and
replacing every earlier unstable unit by a line below or above it (:math:`\\alpha z \\le \\rho(z) \\le
\\lambda (z - l)`, :math:`\\lambda = u/(u-l)`, :math:`\\alpha \\in \\{0, 1, \\lambda\\}`; the tightest
is kept). Plain interval arithmetic would lose the correlations that make, e.g., a hat
:math:`\\rho(t+1) - 2\\rho(t) + \\rho(t-1)` lie in :math:`[0, 1]`; the lines keep them. Units that
differ only in their bias and have two or more kinks inside their range, such as a clip
:math:`\\rho(z) - \\rho(z-1)`, no line bounds well: the variants that bound such a group by the
extrema of its piecewise-linear sum (at its kinks and ends) prove that a clip stays in :math:`[0, 1]`.

The bounds are rigorous in float64: every product and sum is computed with its exact rounding
error (Dekker's product and Knuth's sum), and a bound is moved outwards by the accumulated error,
which is zero exactly when every operation was exact (so a bound of exactly 0, as for
:math:`\\rho(g - 1)` with :math:`g \\le 1`, is proved, not guessed).

:func:`prune_inactive` then removes every unit with :math:`u \\le 0` (it is zero on :math:`B`), merges
units with identical affine rows, and folds a layer whose units all have :math:`l \\ge 0` (the ReLU is
the identity there) into the next affine map. The result computes the same function on :math:`B`:
in exact arithmetic; in float64 up to the rounding of sums that a merge, a fold or a shorter matrix
product orders differently (the removed terms are exactly zero).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import torch
from torch import nn

from .networks import affine_maps, relu_network

SLOPE_BITS = 20  # upper-line slopes are rounded up to multiples of 2^-20, so products with them stay exact
_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's split of a float64 into two 26-bit halves
_TINY = 2.0**-900  # products below this are treated as inexact (Dekker's product assumes no underflow)
# lower lines alpha z (alpha = 0, 1 or lambda) for every unstable unit, each without and with parallel groups
# bounded together (see _parallel_groups); every bound is the tightest of these
STRATEGIES = (("0", False), ("1", False), ("lambda", False), ("0", True), ("lambda", True))
_ERROR_SLACK = 1.0 + 2.0**-40  # rounding of the error sum itself (at most 2^10 terms of relative error 2^-53)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a, b):
    def split(v):
        c = _SPLIT * v
        high = c - (c - v)
        return high, v - high

    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    error = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, np.abs(error) + np.where((p != 0) & (np.abs(p) < _TINY), _TINY, 0.0)


def _matmul(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(fl(a @ b), r)`` with ``|a @ b - fl(a @ b)| <= r`` entrywise; ``r = 0`` where every operation was exact."""
    used = np.flatnonzero(a.any(0) & b.any(1))  # zero terms are exact and add nothing
    a, b = a[:, used], b[used]
    products, errors = _two_product(a[:, :, None], b[None, :, :])
    total = np.zeros((a.shape[0], b.shape[1]))
    error = errors.sum(axis=1)
    for k in range(a.shape[1]):
        total, e = _two_sum(total, products[:, k, :])
        error += np.abs(e)
    return total, error * _ERROR_SLACK


def _upper_line(lower: float, upper: float) -> tuple[float, float]:
    """``(lam, mu)`` with ``rho(z) <= lam z + mu`` on ``[lower, upper]`` (lower < 0 < upper), checked exactly."""
    step = 2.0**-SLOPE_BITS
    lam = min(1.0, np.ceil(upper / (upper - lower) / step) * step)
    while Fraction(lam) * (Fraction(upper) - Fraction(lower)) < Fraction(upper):
        lam += step
    mu = -lam * lower
    if Fraction(mu) < -Fraction(lam) * Fraction(lower):
        mu = float(np.nextafter(mu, np.inf))
    return lam, mu


def _parallel_groups(weight: np.ndarray, bias: np.ndarray, low: np.ndarray, high: np.ndarray):
    """Units with the same weight row, :math:`z_j = z + \\delta_j` (``delta`` exact), at least two unstable.

    Returns ``(members, values, errors)`` per group: :math:`\\rho(t + \\delta_j)` at the breakpoints
    :math:`t` of :math:`\\sum_j c_j \\rho(t + \\delta_j)` in the first member's range ``[l, u]`` (its ends
    and the kinks inside), and a bound on their rounding errors: the extrema of any such sum are among them.
    """
    groups = []
    _, label = np.unique(weight, axis=0, return_inverse=True)
    for group in np.unique(label):
        members = np.flatnonzero(label.reshape(-1) == group)
        if ((low[members] < 0) & (high[members] > 0)).sum() < 2:  # one kink inside: a line is as good
            continue
        delta, delta_error = _two_sum(bias[members], -bias[members[0]])
        members, delta = members[delta_error == 0], delta[delta_error == 0]
        kinks = -delta[(-delta > low[members[0]]) & (-delta < high[members[0]])]
        t = np.concatenate([[low[members[0]], high[members[0]]], kinks])
        shifted, shift_error = _two_sum(t[None, :], delta[:, None])
        groups.append((members, np.maximum(shifted, 0.0), np.abs(shift_error)))
    return groups


def _check_box(box, inputs: int) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(box, (tuple, list)) or len(box) != 2:
        raise TypeError(f"box must be a pair (lower, upper) of numbers or length-{inputs} sequences, got {box!r}")
    try:
        low, high = (np.broadcast_to(np.asarray(torch.as_tensor(v, dtype=torch.float64).cpu()), (inputs,)).copy()
                     for v in box)
    except (TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"box must be a pair (lower, upper) of numbers or length-{inputs} sequences, got {box!r}") from error
    if not (np.isfinite(low).all() and np.isfinite(high).all() and (low <= high).all()):
        raise ValueError(f"box must have finite lower <= upper in each of the {inputs} inputs, got {box!r}")
    return low, high


def preactivation_bounds(net: nn.Module, box) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Rigorous ``(l, u)`` with :math:`l \\le z_\\ell(x) \\le u` on the box, for every hidden layer ``ell``.

    Parameters: ``net`` a ``Sequential(Linear, ReLU, ..., Linear)``; ``box`` a pair ``(lower, upper)``
    of numbers or of sequences of length ``in_features`` (the box :math:`\\prod_i [a_i, b_i]`).
    Returns one pair of float64 tensors ``(width_ell,)`` per hidden layer (see the module docstring).
    """
    maps = [(w.detach().cpu().double().numpy(), b.detach().cpu().double().numpy()) for w, b in affine_maps(net)]
    box_low, box_high = _check_box(box, maps[0][0].shape[1])
    bounds: list[tuple[np.ndarray, np.ndarray]] = []
    lines: list[tuple[np.ndarray, np.ndarray]] = []  # (lambda, mu) of every unit: the upper line lambda z + mu
    groups: list[list] = []  # parallel units of every layer (see _parallel_groups)
    for layer in range(len(maps) - 1):
        w, b = maps[layer]
        rows = w.shape[0]
        # eight copies of the rows: (upper, lower) x four relaxations; the lower bound of z is -max(-z)
        copies = 2 * len(STRATEGIES)
        sign = np.tile(np.repeat([1.0, -1.0], rows), len(STRATEGIES))[:, None]
        lam_rows, c = np.tile(w, (copies, 1)) * sign, np.tile(b, copies) * sign[:, 0]
        error = np.zeros(copies * rows)
        grouped = np.flatnonzero(np.repeat([together for _, together in STRATEGIES], 2 * rows))[:, None]
        for k in range(layer - 1, -1, -1):
            low, high = bounds[k]
            dead, active = high <= 0, (low >= 0) & (high > 0)
            lam, mu = lines[k]
            for members, values, value_error in groups[k]:
                coefficients = lam_rows[grouped, members]
                at_breakpoints, breakpoint_error = _matmul(coefficients, values)
                breakpoint_error += np.abs(coefficients) @ value_error
                at_breakpoints = np.where(breakpoint_error > 0, np.nextafter(at_breakpoints + breakpoint_error, np.inf),
                                          at_breakpoints)  # rounded up where inexact
                c[grouped[:, 0]], e = _two_sum(c[grouped[:, 0]], at_breakpoints.max(1))
                error[grouped[:, 0]] += np.abs(e)
                lam_rows[grouped, members] = 0.0
            lower_lines = {"0": np.where(active, 1.0, 0.0), "1": np.where(dead, 0.0, 1.0), "lambda": lam}
            alpha = np.repeat(np.stack([lower_lines[name] for name, _ in STRATEGIES]), 2 * rows, axis=0)
            slope = np.where(lam_rows >= 0, lam[None], alpha)
            scaled, scale_error = _two_product(lam_rows, slope)
            z_max = np.maximum(np.abs(low), np.abs(high))
            error += scale_error @ z_max
            offset, offset_error = _matmul(np.where(lam_rows >= 0, lam_rows, 0.0), mu[:, None])
            w_k, b_k = maps[k]
            lam_rows, product_error = _matmul(scaled, w_k)
            shift, shift_error = _matmul(scaled, b_k[:, None])
            h_max = (np.maximum(bounds[k - 1][1], 0.0) if k else np.maximum(np.abs(box_low), np.abs(box_high)))
            error += product_error @ h_max + offset_error[:, 0] + shift_error[:, 0]
            c, e1 = _two_sum(c, offset[:, 0])
            c, e2 = _two_sum(c, shift[:, 0])
            error += np.abs(e1) + np.abs(e2)
        corner = np.where(lam_rows >= 0, box_high[None], box_low[None])
        products, product_error = _two_product(lam_rows, corner)
        value = c.copy()
        error += product_error.sum(1)
        for i in range(products.shape[1]):
            value, e = _two_sum(value, products[:, i])
            error += np.abs(e)
        error *= _ERROR_SLACK
        value = np.where(error > 0, np.nextafter(value + error, np.inf), value).reshape(copies, rows)
        upper, lower = value[0::2].min(0), -value[1::2].min(0)
        bounds.append((lower, upper))
        line = [(1.0, 0.0) if lo >= 0 < hi else (0.0, 0.0) if hi <= 0 else _upper_line(lo, hi)
                for lo, hi in zip(lower, upper)]
        lines.append((np.array([v[0] for v in line]), np.array([v[1] for v in line])))
        groups.append(_parallel_groups(w, b, lower, upper))
    return [(torch.from_numpy(lo), torch.from_numpy(hi)) for lo, hi in bounds]


def prune_inactive(net: nn.Module, box) -> nn.Sequential:
    """A smaller ``Sequential`` equal to ``net`` on ``box``: idle units removed, linear layers folded.

    With the bounds :math:`[l, u]` of :func:`preactivation_bounds`: a unit with :math:`u \\le 0` is
    zero on the box and is removed with its column of the next affine map; units with identical
    rows :math:`(W_{\\ell, j}, b_{\\ell, j})` are one unit (their columns of the next map are added); a
    layer whose remaining units all have :math:`l \\ge 0` is affine on the box and is folded,
    :math:`A_{\\ell+1} \\circ A_\\ell`. Equal to ``net`` on the box up to float64 rounding of reordered sums.
    A layer with every unit removed keeps one unit of zero weights (the output is then constant).
    Parameters and returns as in :func:`preactivation_bounds`; the result is float64, frozen.
    """
    bounds = preactivation_bounds(net, box)
    maps = [(w.detach().double().clone(), b.detach().double().clone()) for w, b in affine_maps(net)]
    kept: list[tuple[torch.Tensor, torch.Tensor]] = []
    weight, bias = maps[0]
    for layer, (low, high) in enumerate(bounds):
        low, high = low.to(weight.device), high.to(weight.device)
        next_weight, next_bias = maps[layer + 1]
        alive = torch.nonzero(high > 0).flatten()
        if alive.numel() == 0:
            weight, bias, low, high = torch.zeros_like(weight[:1]), torch.zeros_like(bias[:1]), low[:1], high[:1]
            next_weight = torch.zeros_like(next_weight[:, :1])
        else:
            weight, bias, low, high, next_weight = (weight[alive], bias[alive], low[alive], high[alive],
                                                    next_weight[:, alive])
            rows, first = torch.unique(torch.cat([weight, bias[:, None]], 1), dim=0, return_inverse=True)[:2]
            if rows.shape[0] < weight.shape[0]:
                keep = torch.tensor(sorted({int(first.tolist().index(g)) for g in range(rows.shape[0])}),
                                    device=weight.device)
                merged = torch.zeros(next_weight.shape[0], rows.shape[0], dtype=torch.float64, device=weight.device)
                merged.index_add_(1, first, next_weight)
                order = first[keep]
                weight, bias, low, high, next_weight = weight[keep], bias[keep], low[keep], high[keep], merged[:, order]
        if bool((low >= 0).all()):  # affine on the box: fold into the next map
            weight, bias = next_weight @ weight, next_weight @ bias + next_bias
            continue
        kept.append((weight, bias))
        weight, bias = next_weight, next_bias
    kept.append((weight, bias))
    return relu_network(kept)
