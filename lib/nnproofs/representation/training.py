"""Chapter 3: two-layer ReLU networks trained by full-batch Adam in float64, from PyTorch's default initialisation
(the trained networks of ``obs-trained``, compared with the representation in :mod:`.neurons`)."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import NamedTuple

import torch
from torch import nn

from .. import device as book_device
from ..measure import sample_inputs
from ..validate import flag, int_at_least, positive_int, positive_real

LEARNING_RATE = 5e-3  # full-batch Adam; at the ci sizes 1000 steps reach a relative test MSE of about 5e-4


def initial_network(d: int, width: int, *, init_scale: float = 1.0, generator: torch.Generator | None = None,
                    device=None) -> nn.Sequential:
    """``Sequential(Linear(d, width), ReLU, Linear(width, 1))`` in float64 with PyTorch's default initialisation for
    ``nn.Linear`` (weights and biases uniform on :math:`\\pm 1/\\sqrt{\\text{fan-in}}`) times ``init_scale``, drawn
    from ``generator`` (on its device; else on ``device``, default ``BOOK_DEVICE``)."""
    d, width = positive_int("d", d), positive_int("width", width)
    init_scale = positive_real("init_scale", init_scale)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    dev = generator.device if generator is not None else torch.device(device or book_device.device())
    net = nn.Sequential(nn.Linear(d, width), nn.ReLU(), nn.Linear(width, 1)).to(dtype=torch.float64, device=dev)
    with torch.no_grad():
        for layer in (net[0], net[2]):
            bound = init_scale / math.sqrt(layer.in_features)
            for p in (layer.weight, layer.bias):
                p.copy_((2 * torch.rand(p.shape, dtype=torch.float64, device=dev, generator=generator) - 1) * bound)
    return net


class Training(NamedTuple):
    """A trained network, its initialisation (a copy taken before the first step) and the relative training MSE
    per step (the mean squared error over the variance of the training targets)."""

    trained: nn.Sequential
    initial: nn.Sequential
    relative_losses: tuple[float, ...]


def train_two_layer(target: Callable[[torch.Tensor], torch.Tensor], d: int, width: int, *, inputs: str = "sphere",
                    points: int, steps: int, lr: float = LEARNING_RATE, init_scale: float = 1.0, seed: int = 0,
                    permute_targets: bool = False, device=None) -> Training:
    """Fit ``Sequential(Linear(d, width), ReLU, Linear(width, 1))`` to ``target`` on ``points`` points of :math:`D`
    by ``steps`` steps of full-batch Adam (learning rate ``lr``) on the mean squared error, in float64.

    Everything is drawn from one generator seeded with ``seed`` on ``device`` (default ``BOOK_DEVICE``): the points
    (:func:`~nnproofs.measure.sample_inputs`), then the initialisation (:func:`initial_network`).
    ``permute_targets=True`` then permutes the targets (a null: nothing to learn; same points, same initialisation).
    """
    if not callable(target):
        raise TypeError(f"target must be a callable (N, d) tensor -> (N,) tensor, got {type(target).__name__}")
    points, steps = positive_int("points", points), positive_int("steps", steps)
    lr = positive_real("lr", lr)
    permute_targets = flag("permute_targets", permute_targets)
    seed = int_at_least("seed", seed, 0)
    dev = torch.device(device) if device is not None else book_device.device()
    g = torch.Generator(device=dev).manual_seed(seed)
    x = sample_inputs(points, d, inputs, generator=g)
    y = torch.as_tensor(target(x), dtype=torch.float64, device=dev)
    if y.shape != (points,) or not torch.isfinite(y).all():
        raise ValueError(f"target must return {points} finite values for {points} points, got shape {tuple(y.shape)}")
    net = initial_network(d, width, init_scale=init_scale, generator=g)
    if permute_targets:
        y = y[torch.randperm(points, generator=g, device=dev)]
    initial = copy.deepcopy(net).requires_grad_(False)
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    losses = torch.empty(steps, dtype=torch.float64, device=dev)
    for step in range(steps):
        optimiser.zero_grad(set_to_none=True)
        loss = ((net(x)[:, 0] - y) ** 2).mean()
        loss.backward()
        optimiser.step()
        losses[step] = loss.detach()
    return Training(net.requires_grad_(False), initial, tuple((losses / y.var(correction=0)).tolist()))
