"""Exact linear pieces of a one-dimensional ReLU network.

A ReLU network :math:`\\Phi:\\mathbb{R}\\to\\mathbb{R}` is continuous and piecewise linear. Its
pieces are found layer by layer without sampling: keep a partition
:math:`a = t_0 < \\cdots < t_K = b` on which every neuron computed so far is affine, so each
neuron is known exactly from its values at the :math:`t_k`. An affine layer keeps the partition;
a ReLU layer adds the zero crossing :math:`t_k + (t_{k+1}-t_k)\\,v_k/(v_k - v_{k+1})` of every
pre-activation that changes sign strictly inside an interval (kinks closer than
:math:`10^{-12}(b-a)` count as one), then clips. At the end, adjacent
intervals with equal slopes are merged: the count is the number of maximal intervals on which
:math:`\\Phi` is affine (the quantity that Theorem ``thm-yarotsky-square``'s proof and the
depth bound :math:`P \\le (W+1)^L` speak of).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .networks import affine_maps

SLOPE_RTOL = 1e-9  # slopes that agree to 9 digits are one piece (float64 round-off is ~1e-16·depth)
KINK_RTOL = 1e-12  # kinks closer than this fraction of b - a are one kink: round-off can split an exact
#                    zero of a unit into two crossings a few ulps apart, whose sliver has a garbage slope


def breakpoints(net: nn.Module, a: float = 0.0, b: float = 1.0) -> torch.Tensor:
    """The points of ``(a, b)`` where the slope of the 1-D network ``net`` changes, ascending."""
    if not (math.isfinite(a) and math.isfinite(b) and a < b):
        raise ValueError(f"need finite a < b, got a={a!r}, b={b!r}")
    maps = affine_maps(net)
    if maps[0][0].shape[1] != 1 or maps[-1][0].shape[0] != 1:
        raise ValueError(
            f"net must map R to R, got {maps[0][0].shape[1]} inputs and {maps[-1][0].shape[0]} outputs"
        )
    weight0 = maps[0][0]
    t = torch.tensor([a, b], dtype=torch.float64, device=weight0.device)
    values = t[:, None]  # values of the current layer's units at the partition points
    for index, (weight, bias) in enumerate(maps):
        values = values @ weight.to(torch.float64).T + bias.to(torch.float64)
        if index == len(maps) - 1:
            break
        left, right = values[:-1], values[1:]
        crossing = (left * right) < 0
        if crossing.any():
            k, unit = crossing.nonzero(as_tuple=True)
            frac = left[k, unit] / (left[k, unit] - right[k, unit])
            new_t = t[k] + (t[k + 1] - t[k]) * frac
            # every unit is affine between old partition points: interpolate all units at new points
            new_values = left[k] + (right[k] - left[k]) * frac[:, None]
            order = torch.argsort(new_t)
            new_t, new_values = new_t[order], new_values[order]
            tol = KINK_RTOL * (b - a)
            distinct = torch.ones_like(new_t, dtype=torch.bool)
            distinct[1:] = new_t[1:] - new_t[:-1] > tol
            slot = torch.searchsorted(t, new_t).clamp(1, t.numel() - 1)
            distinct &= (new_t - t[slot - 1] > tol) & (t[slot] - new_t > tol)
            t_all = torch.cat([t, new_t[distinct]])
            order = torch.argsort(t_all)
            t, values = t_all[order], torch.cat([values, new_values[distinct]])[order]
        values = torch.relu(values)
    output = values[:, 0]
    slopes = (output[1:] - output[:-1]) / (t[1:] - t[:-1])
    scale = torch.maximum(slopes[1:].abs(), slopes[:-1].abs()).clamp_min(1.0)
    changes = (slopes[1:] - slopes[:-1]).abs() > SLOPE_RTOL * scale
    return t[1:-1][changes]


def linear_pieces(net: nn.Module, a: float = 0.0, b: float = 1.0) -> int:
    """The number of maximal intervals of ``[a, b]`` on which the 1-D network ``net`` is affine."""
    return int(breakpoints(net, a, b).numel()) + 1
