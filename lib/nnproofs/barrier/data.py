"""Networks to connect: worst-case spread networks, the chapter's teacher data, trained networks."""

from __future__ import annotations

import math

import torch

from .. import device as book_device
from ..measure import sample_inputs
from ..validate import finite_real, positive_int
from .losses import get_loss
from .model import LAMBDA, Network, _data, _forward, _generator, _lam


def spread_network(n: int, width: int, *, seed: int = 0, device=None) -> Network:
    """A worst case for merging: ``w_j`` uniform in the unit ball (directions uniform on S^{n−1}),
    ``a_j = ±1/m`` with random signs, so ``‖a‖₁ = 1`` and no two neurons are close."""
    n, width = positive_int("n", n), positive_int("width", width)
    generator = _generator(seed, device)
    W = sample_inputs(width, n, "ball", generator=generator)
    signs = torch.randint(0, 2, (width,), generator=generator, device=device).to(torch.float64) * 2 - 1
    return W, signs / width


def teacher_data(n: int, *, samples: int = 256, loss: str = "huber", seed: int = 0, device=None):
    """``samples`` points ``x`` uniform in the unit ball of ℝⁿ and targets from a bias-free 5-ridge teacher.

    Teacher ``g(x) = Σ_{i≤5} c_i ρ(v_i · x)`` with unit ``v_i`` and ``c_i = ±1`` alternating;
    ``huber``: ``y = g(x) + 0.05 ε``; ``bce``: ``y = 1[g(x) > median g]``. Returns float64 ``(x, y)``.
    """
    n, samples = positive_int("n", n), positive_int("samples", samples)
    loss = get_loss(loss).name
    generator = _generator(seed, device)
    x = sample_inputs(samples, n, "ball", generator=generator)
    v = torch.randn(5, n, generator=generator, dtype=torch.float64, device=device)
    v = v / v.norm(dim=1, keepdim=True)
    c = torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=torch.float64, device=device)
    g = torch.relu(x @ v.T) @ c
    if loss == "huber":
        return x, g + 0.05 * torch.randn(samples, generator=generator, dtype=torch.float64, device=device)
    return x, (g > g.median()).to(torch.float64)


def train_networks(x, y, *, width: int, seeds: int, loss: str, lam: float = LAMBDA, steps: int | None = None,
                   lr: float = 0.02, seed: int = 0) -> Network:
    """Train ``seeds`` bias-free networks of width ``width`` at once; return ``W (S, m, n)``, ``a (S, m)``.

    Full-batch Adam on ``Σ_s C(θ_s)`` (the seeds are independent: the sum's gradient is each one's),
    each step followed by the projection ``w_j ← w_j / max(1, ‖w_j‖)`` onto the feasible set.
    Initialisation from ``seed``: ``w_j`` uniform in the unit ball, ``a_j ~ N(0, 1/m)``.
    ``steps`` defaults to 300 at ``BOOK_SCALE=ci`` and 1500 at ``full``.
    """
    width, seeds = positive_int("width", width), positive_int("seeds", seeds)
    x, y = _data(x, y, loss=loss)
    loss_fn, lam = get_loss(loss), _lam(lam)
    steps = book_device.sizes(ci=300, full=1500) if steps is None else positive_int("steps", steps)
    lr = finite_real("lr", lr)
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr!r}")
    generator = _generator(seed, x.device)
    W = sample_inputs(seeds * width, x.shape[1], "ball", generator=generator).reshape(seeds, width, -1).requires_grad_()
    a = (torch.randn(seeds, width, generator=generator, dtype=torch.float64, device=x.device)
         / math.sqrt(width)).requires_grad_()
    optimiser = torch.optim.Adam([W, a], lr=lr)
    for _ in range(steps):
        optimiser.zero_grad(set_to_none=True)
        total = (loss_fn(_forward(W, a, x), y).mean(-1) + lam * a.abs().sum(-1)).sum()
        total.backward()
        optimiser.step()
        with torch.no_grad():
            W /= W.norm(dim=-1, keepdim=True).clamp_min(1.0)
    return W.detach(), a.detach()


def _lift(x: torch.Tensor) -> torch.Tensor:
    """Inputs ``(x, 1)``: a network with biases on ``x`` is a bias-free network on these."""
    return torch.cat([x, torch.ones_like(x[:, :1])], dim=1)


def spread_pairs(n: int, width: int, *, seeds: int, seed: int = 0, device=None) -> list[tuple[Network, Network]]:
    """``seeds`` pairs of independent :func:`spread_network` s; offset ``seed`` uses the network seeds
    ``2·seeds·seed + 2s`` and ``+ 1`` for pair ``s``, so different offsets share no network."""
    n, width, seeds = positive_int("n", n), positive_int("width", width), positive_int("seeds", seeds)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    base = 2 * seeds * seed
    return [(spread_network(n, width, seed=base + 2 * s, device=device),
             spread_network(n, width, seed=base + 2 * s + 1, device=device)) for s in range(seeds)]


def tight_pair(device=None):
    """A pair on which the grid path's barrier is 70% of its certificate: ``(A, B, x, y)``.

    Four units ``w = (1, 0), (0, 1), (0, −1), (−1, 0)`` with ``a = (50, 0, 0, 0)``, ``A = B``, one sample
    ``x = (1, 0)`` with target ``y = 50`` (Huber: ``f = y`` at both ends). The grid cover with
    ``K = 2`` cells has centres ``(0, ±1)``, so merging moves the only active unit ``(1, 0)`` by
    ``√2`` (the covering radius) and its output falls from 50 to 0: the realised barrier is 0.7036 of
    the certificate. The checks audit it (``REQ_TIGHT``) so that a certificate understated by more than
    30% is rejected, which the chapter's networks (ratio ≤ 0.09) cannot do.
    """
    device = book_device.device() if device is None else device
    W = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [-1.0, 0.0]], dtype=torch.float64, device=device)
    a = torch.tensor([50.0, 0.0, 0.0, 0.0], dtype=torch.float64, device=device)
    x = torch.tensor([[1.0, 0.0]], dtype=torch.float64, device=device)
    y = torch.tensor([50.0], dtype=torch.float64, device=device)
    return (W, a), (W.clone(), a.clone()), x, y
