"""Negative controls of chapter 1: constructions that break one ingredient of the proof, each rejected by a check.

* :func:`relu_swapped_network` (broken: no curvature), :func:`without_coarse_factor_network` (a missing factor of
  the partition of unity), :func:`float32_network` (single precision), :func:`padded_network` (``N`` growing like
  ``K^{2d+1}``), :func:`one_degree_short_network` (the near miss: local polynomials of degree ``k - 1``) are rejected by :func:`nnproofs.smooth.check_constant_depth_rate`;
* the one-sided stencil at :data:`FORWARD_CONTROL_BASE` by :func:`nnproofs.smooth.check_gadget_rate`;
* the target ``|x - 0.37|^OUT_OF_CLASS_EXPONENT`` (:func:`nnproofs.smooth.holder_target`), just outside the class
  at ``k = 2``, by the rate check; ``comparison="relu"`` by :func:`nnproofs.smooth.check_relu_bottleneck`;
  ``permute_labels=True`` by :func:`nnproofs.smooth.check_learning_curve`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from . import gadgets as sg
from .inputs import cells, degree, device_of, dimension, target
from .network import build, constant_depth_network, refuse_large


FORWARD_CONTROL_BASE = 1.0  # GELU'''(1) = -3φ(1) ≠ 0: there the one-sided stencil is first order
OUT_OF_CLASS_EXPONENT = 2.7  # |x - 0.37|^2.7 is in C^2 but not C^3: 0.3 short of k + 1 = 3


def relu_swapped_network(f: Callable, *, k: int, K: int, activation: str = "gelu", d: int = 1,
                         device=None) -> nn.Sequential:
    """Negative control: the constant-depth network with ``nn.ReLU`` in place of ``σ``.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    k, K, activation, d, device
        As for :func:`constant_depth_network`.

    Returns
    -------
    torch.nn.Sequential
        The same weights, ``nn.ReLU`` between them.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> net = smooth.relu_swapped_network(smooth.chapter_target, k=1, K=2)
    >>> set(smooth.read_network(net).activations)
    {'relu'}

    Notes
    -----
    The square gadget then computes ``|x|/δ``, not ``x²``; the rate check refuses the undeclared activation.
    """
    net = constant_depth_network(f, k=k, K=K, activation=activation, d=d, device=device)
    return nn.Sequential(*[m if isinstance(m, nn.Linear) else nn.ReLU() for m in net])


def without_coarse_factor_network(f: Callable, *, k: int, K: int, activation: str = "gelu", d: int = 1,
                                  device=None) -> nn.Sequential:
    """Negative control: the weights ``ω_j = B_f`` without the coarse factor ``B_c``.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    k, K, activation, d, device
        As for :func:`constant_depth_network`.

    Returns
    -------
    torch.nn.Sequential
        Same depth and nearly the same size as :func:`constant_depth_network`.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> net = smooth.without_coarse_factor_network(smooth.chapter_target, k=1, K=2)
    >>> len(smooth.affine_maps(net))
    7

    Notes
    -----
    Grid 0's weight does not vanish where its coarse staircase is in transition: the sampled sup does not
    converge (tests/test_smooth_soundness.py), so the rate check cannot pass.
    """
    k, K, d, name = degree(k), cells("K", K), dimension(d), sg.activation_name(activation)
    refuse_large(K, k, d)
    device = device_of(device)
    return build(target(f, d, device), k=k, K=K, activation=name, d=d, coarse_factor=False, device=device)


def float32_network(f: Callable, *, k: int, K: int, activation: str = "gelu", d: int = 1,
                    device=None) -> nn.Sequential:
    """Negative control: the float64 construction with its parameters cast to float32.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    k, K, activation, d, device
        As for :func:`constant_depth_network`.

    Returns
    -------
    torch.nn.Sequential
        The network in float32.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> net = smooth.float32_network(smooth.chapter_target, k=1, K=2)
    >>> smooth.read_network(net).dtype
    torch.float32

    Notes
    -----
    The gadgets divide by ``δ² ≈ 1e-10``: float32 loses every digit; the rate check requires float64 maps.
    """
    return constant_depth_network(f, k=k, K=K, activation=activation, d=d, device=device).float()


def one_degree_short_network(f: Callable, *, k: int, K: int, activation: str = "gelu", d: int = 1,
                             device=None) -> nn.Sequential:
    """Near-miss control: the construction of degree ``k - 1`` presented as degree ``k``.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    k, K, activation, d, device
        As for :func:`constant_depth_network`.

    Returns
    -------
    torch.nn.Sequential
        The network of degree ``k - 1`` (``k >= 1``, else a ``ValueError``).

    Examples
    --------
    >>> from nnproofs import smooth
    >>> net = smooth.one_degree_short_network(smooth.chapter_target, k=1, K=2)
    >>> smooth.read_network(net).parameters < smooth.read_network(smooth.constant_depth_network(smooth.chapter_target, k=1, K=2)).parameters
    True

    Notes
    -----
    Its error is ``O(K^{-2k})``, one degree short of Theorem ``thm-constant-depth``'s ``K^{-2(k+1)}``.
    """
    k = degree(k)
    if k == 0:
        raise ValueError("k must be >= 1 for a construction one degree short, got 0")
    return constant_depth_network(f, k=k - 1, K=K, activation=activation, d=d, device=device)


def padded_network(f: Callable, *, k: int, K: int, activation: str = "gelu", d: int = 1,
                   device=None) -> nn.Sequential:
    """Negative control of ``N = O(K^{2d})``: the network with about ``3K^{2d+1}`` idle parameters added.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    k, K, activation, d, device
        As for :func:`constant_depth_network`.

    Returns
    -------
    torch.nn.Sequential
        The same function and depth, ``⌈3K^{2d+1}/(n+2)⌉`` zero-weight units added to the last hidden layer.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> net = smooth.padded_network(smooth.chapter_target, k=1, K=2)
    >>> len(smooth.affine_maps(net))
    7

    Notes
    -----
    Only the parameter count grows faster than ``K^{2d}``: the exact divided differences of the rate check see it.
    """
    net = constant_depth_network(f, k=k, K=K, activation=activation, d=d, device=device)
    hidden, output = net[-3], net[-1]
    extra = math.ceil(3 * K ** (2 * d + 1) / (hidden.in_features + 2))
    wider = nn.Linear(hidden.in_features, hidden.out_features + extra, dtype=hidden.weight.dtype,
                      device=hidden.weight.device)
    last = nn.Linear(hidden.out_features + extra, 1, dtype=output.weight.dtype, device=output.weight.device)
    with torch.no_grad():
        wider.weight.zero_()
        wider.bias.zero_()
        wider.weight[: hidden.out_features] = hidden.weight
        wider.bias[: hidden.out_features] = hidden.bias
        last.weight.zero_()
        last.weight[:, : hidden.out_features] = output.weight
        last.bias.copy_(output.bias)
    padded = nn.Sequential(*net[:-3], wider, net[-2], last)
    padded.requires_grad_(False)
    return padded
