"""ReLU networks as plain ``torch.nn.Sequential`` modules whose weights are set by formula.

A network with :math:`L` hidden layers is the alternating composition

.. math::

    \\Phi = A_{L+1} \\circ \\rho \\circ A_L \\circ \\cdots \\circ \\rho \\circ A_1,

    A_\\ell(z) = W_\\ell z + b_\\ell, \\quad \\rho(t) = \\max(t, 0),

stored as ``Sequential(Linear, ReLU, ..., Linear)``. Width, depth and parameter count are read off
the module (:func:`architecture`), never claimed separately. :func:`compose` fuses the adjacent
affine maps of two networks (:math:`A \\circ A'` is affine), so a composition of depths
:math:`L_1` and :math:`L_2` has depth :math:`L_1 + L_2`; :func:`parallel` stacks networks of equal
depth block-diagonally. ``prune_inactive(net, box)`` (:mod:`nnproofs.pruning`) removes the units
that are provably idle on an input box.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from .validate import positive_int

Affine = tuple[torch.Tensor, torch.Tensor]


def relu_network(maps: Sequence[Affine]) -> nn.Sequential:
    """``Sequential(Linear, ReLU, ..., Linear)`` realising the affine maps ``(W_l, b_l)`` in order.

    ``W_l`` has shape ``(out, in)`` and ``b_l`` shape ``(out,)``; consecutive shapes must chain.
    Parameters keep the dtype and device of the given tensors and are frozen (no gradients).
    """
    if len(maps) == 0:
        raise ValueError("maps must contain at least one affine map (W, b), got none")
    layers: list[nn.Module] = []
    for index, (weight, bias) in enumerate(maps):
        if not isinstance(weight, torch.Tensor) or not isinstance(bias, torch.Tensor):
            raise TypeError(f"maps[{index}] must be a pair of tensors (W, b), got {type(weight).__name__}, {type(bias).__name__}")
        if weight.ndim != 2 or bias.shape != (weight.shape[0],):
            raise ValueError(f"maps[{index}]: W must be (out, in) and b (out,), got {tuple(weight.shape)} and {tuple(bias.shape)}")
        if index and weight.shape[1] != maps[index - 1][0].shape[0]:
            raise ValueError(
                f"maps[{index}] takes {weight.shape[1]} inputs but maps[{index - 1}] gives {maps[index - 1][0].shape[0]}"
            )
        linear = nn.Linear(weight.shape[1], weight.shape[0], dtype=weight.dtype, device=weight.device)
        with torch.no_grad():
            linear.weight.copy_(weight)
            linear.bias.copy_(bias.to(weight.dtype))
        linear.requires_grad_(False)
        if index:
            layers.append(nn.ReLU())
        layers.append(linear)
    return nn.Sequential(*layers)


def affine_maps(net: nn.Module, name: str = "net") -> list[Affine]:
    """The affine maps ``(W_l, b_l)`` of a ``Sequential(Linear, ReLU, ..., Linear)``, in order."""
    if not isinstance(net, nn.Sequential):
        raise TypeError(f"{name} must be a torch.nn.Sequential of Linear and ReLU layers, got {type(net).__name__}")
    modules = list(net)
    if not modules or len(modules) % 2 == 0:
        raise ValueError(f"{name} must alternate Linear, ReLU, ..., Linear; got {len(modules)} modules")
    maps = []
    for index, module in enumerate(modules):
        wanted = nn.Linear if index % 2 == 0 else nn.ReLU
        if not isinstance(module, wanted):
            raise TypeError(f"{name}[{index}] must be {wanted.__name__}, got {type(module).__name__}")
        if isinstance(module, nn.Linear):
            bias = module.bias if module.bias is not None else torch.zeros_like(module.weight[:, 0])
            maps.append((module.weight.detach(), bias.detach()))
    return maps


def compose(outer: nn.Module, inner: nn.Module) -> nn.Sequential:
    """The network of ``outer ∘ inner``: the last map of ``inner`` and the first of ``outer`` fuse."""
    a, b = affine_maps(inner, "inner"), affine_maps(outer, "outer")
    (w_in, b_in), (w_out, b_out) = a[-1], b[0]
    if w_out.shape[1] != w_in.shape[0]:
        raise ValueError(f"outer takes {w_out.shape[1]} inputs but inner gives {w_in.shape[0]} outputs")
    fused = (w_out @ w_in, w_out @ b_in + b_out)
    return relu_network([*a[:-1], fused, *b[1:]])


def parallel(*nets: nn.Module) -> nn.Sequential:
    """Networks of equal depth side by side: input and output are the concatenations."""
    if not nets:
        raise ValueError("parallel needs at least one network")
    all_maps = [affine_maps(net, f"nets[{i}]") for i, net in enumerate(nets)]
    depths = {len(maps) for maps in all_maps}
    if len(depths) != 1:
        raise ValueError(f"parallel needs networks of equal depth, got {sorted(d - 1 for d in depths)} hidden layers")
    stacked = [
        (torch.block_diag(*(maps[i][0] for maps in all_maps)), torch.cat([maps[i][1] for maps in all_maps]))
        for i in range(depths.pop())
    ]
    return relu_network(stacked)


def linear_map(weight, bias=None, *, dtype=torch.float64, device=None) -> nn.Sequential:
    """The affine map ``z -> W z + b`` as a network with no hidden layer (for use in :func:`compose`)."""
    weight = torch.as_tensor(weight, dtype=dtype, device=device)
    if weight.ndim != 2:
        raise ValueError(f"weight must be a 2-D (out, in) array, got shape {tuple(weight.shape)}")
    bias = torch.zeros(weight.shape[0], dtype=dtype, device=device) if bias is None else torch.as_tensor(bias, dtype=dtype, device=device)
    return relu_network([(weight, bias)])


@dataclass(frozen=True)
class Architecture:
    """What a network costs: hidden layers, widest hidden layer, parameters (nonzero among them)."""

    depth: int
    width: int
    parameters: int
    nonzero_parameters: int


def architecture(net: nn.Module) -> Architecture:
    """Depth (number of hidden ReLU layers), width and parameter counts read off ``net``."""
    maps = affine_maps(net)
    hidden = [w.shape[0] for w, _ in maps[:-1]]
    params = sum(w.numel() + b.numel() for w, b in maps)
    nonzero = sum(int((w != 0).sum()) + int((b != 0).sum()) for w, b in maps)
    return Architecture(depth=len(hidden), width=max(hidden, default=0), parameters=params, nonzero_parameters=nonzero)


COLUMN_BLOCK = 16384  # inputs per block in forward_columns: a block's activations stay in the CPU's cache


def forward_columns(net: nn.Module, x: torch.Tensor, *, block: int = COLUMN_BLOCK) -> torch.Tensor:
    """``net(x)`` for a ``Sequential(Linear, ReLU, ..., Linear)``, with the activations stored feature-major.

    Each block of ``block`` inputs is transposed once, :math:`H_0 = x^T`, and every layer is the
    single matrix product :math:`H_\\ell = \\rho(W_\\ell H_{\\ell-1} + b_\\ell)` with the long dimension
    last, instead of a product with a skinny ``(n, width)`` factor; a block's activations stay in
    cache. The same affine maps and ReLUs as ``net(x)``, summed in another order: equal to it up
    to rounding. Differentiable (autograd records every step).
    """
    maps = affine_maps(net)
    if x.ndim != 2 or x.shape[1] != maps[0][0].shape[1]:
        raise ValueError(f"x must have shape (n, {maps[0][0].shape[1]}), got {tuple(x.shape)}")
    outputs = []
    for start in range(0, x.shape[0], positive_int("block", block)):
        h = x[start : start + block].T
        for w, b in maps[:-1]:
            h = torch.addmm(b[:, None], w, h).relu_()
        w, b = maps[-1]
        outputs.append(torch.addmm(b[:, None], w, h).T)
    return torch.cat(outputs) if outputs else x.new_zeros(0, maps[-1][0].shape[0])


def __getattr__(name: str):
    """``prune_inactive`` and ``preactivation_bounds`` live in :mod:`nnproofs.pruning`, which builds on this module."""
    if name in ("prune_inactive", "preactivation_bounds"):
        from . import pruning

        return getattr(pruning, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
