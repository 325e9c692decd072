"""Networks to connect: worst-case spread networks, the chapter's teacher data, trained networks."""

from __future__ import annotations

import math

import torch

from .. import device as book_device
from ..measure import sample_inputs
from ..validate import finite_real, positive_int
from . import costs
from .covers import sphere_cover
from .losses import get_loss
from .model import LAMBDA, MAX_LR, Network, _data, _device, _forward, _generator, _lam


def spread_network(n: int, width: int, *, seed: int = 0, device=None) -> Network:
    """A worst case for merging: units spread over the ball, no two close, with ``‖a‖₁ = 1``.

    Parameters
    ----------
    n : int
        Input dimension.
    width : int
        ``m``.
    seed : int
        Seed of the weights and signs.
    device : str or torch.device, optional
        Default: the book's device.

    Returns
    -------
    W : tensor (m, n), float64
        Uniform in the unit ball (directions uniform on S^{n−1}).
    a : tensor (m,), float64
        ``±1/m`` with random signs.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> W, a = barrier.spread_network(2, 8)
    >>> float(a.abs().sum()), bool((W.norm(dim=1) <= 1).all())
    (1.0, True)

    Notes
    -----
    Budget: ``8·m·(n + 1)`` bytes within ``budget.memory()``.
    """
    n, width, device = positive_int("n", n), positive_int("width", width), _device(device)
    work, memory = costs.networks(1, width, n)
    costs.refuse("n and width", (n, width), work=work, memory=memory)
    generator = _generator(seed, device)
    W = sample_inputs(width, n, "ball", generator=generator)
    signs = torch.randint(0, 2, (width,), generator=generator, device=device).to(torch.float64) * 2 - 1
    return W, signs / width


def teacher_data(n: int, *, samples: int = 256, loss: str = "huber", seed: int = 0, device=None):
    """``samples`` points ``x`` uniform in the unit ball of ℝⁿ and targets from a bias-free 5-ridge teacher.

    Parameters
    ----------
    n : int
        Input dimension.
    samples : int
        Number of points ``N``.
    loss : str
        ``"huber"``: ``y = g(x) + 0.05 ε``; ``"bce"``: ``y = 1[g(x) > median g]``, with the teacher
        ``g(x) = Σ_{i≤5} c_i ρ(v_i · x)``, unit ``v_i`` and ``c_i = ±1`` alternating.
    seed : int
        Seed of the points, the teacher and the noise.
    device : str or torch.device, optional
        Default: the book's device.

    Returns
    -------
    x : tensor (N, n), float64
    y : tensor (N,), float64

    Examples
    --------
    >>> from nnproofs import barrier
    >>> x, y = barrier.teacher_data(2, samples=8)
    >>> tuple(x.shape), tuple(y.shape)
    ((8, 2), (8,))

    Notes
    -----
    Budget: ``8·samples·(n + 6)`` bytes within ``budget.memory()``.
    """
    n, samples, device = positive_int("n", n), positive_int("samples", samples), _device(device)
    costs.refuse("n and samples", (n, samples), work=costs.ELEMENT * samples * (n + 6), memory=8.0 * samples * (n + 6))
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
    """Train ``seeds`` bias-free networks of width ``width`` at once, projected onto ``‖w_j‖ ≤ 1``.

    Parameters
    ----------
    x, y : tensors (N, n) and (N,)
        The data.
    width : int
        ``m``.
    seeds : int
        How many networks (independent initialisations, trained in one tensor).
    loss : str
        A key of :data:`LOSSES`.
    lam : float
        The ℓ1 weight λ.
    steps : int, optional
        Adam steps; 300 at ``BOOK_SCALE=ci`` and 1500 at ``full`` by default.
    lr : float
        Adam's learning rate.
    seed : int
        Initialisation seed: ``w_j`` uniform in the unit ball, ``a_j ~ N(0, 1/m)``.

    Returns
    -------
    W : tensor (seeds, m, n)
    a : tensor (seeds, m)

    Examples
    --------
    >>> from nnproofs import barrier
    >>> x, y = barrier.teacher_data(2, samples=16)
    >>> W, a = barrier.train_networks(x, y, width=4, seeds=2, loss="huber", steps=3)
    >>> tuple(W.shape), tuple(a.shape)
    ((2, 4, 2), (2, 4))

    Notes
    -----
    Full-batch Adam on ``Σ_s C(θ_s)``, each step followed by ``w_j ← w_j / max(1, ‖w_j‖)``.
    Budget: ``3·steps·seeds·m·N·(n + 1)`` multiply-adds within ``budget.work()``.
    """
    width, seeds = positive_int("width", width), positive_int("seeds", seeds)
    x, y = _data(x, y, loss=loss)
    loss_fn, lam = get_loss(loss), _lam(lam)
    steps = book_device.sizes(ci=300, full=1500) if steps is None else positive_int("steps", steps)
    work, memory = costs.training(steps, seeds, width, x.shape[1], x.shape[0])
    costs.refuse("x, width, seeds and steps", (tuple(x.shape), width, seeds, steps), work=work, memory=memory)
    lr = finite_real("lr", lr)
    if not 0 < lr <= MAX_LR:
        raise ValueError(f"lr must be in (0, {MAX_LR:g}], got {lr!r}")
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
    if not (bool(torch.isfinite(W).all()) and bool(torch.isfinite(a).all())):
        raise ValueError(f"lr = {lr:g}: training diverged (non-finite weights); use a smaller lr")
    return W.detach(), a.detach()


def _lift(x: torch.Tensor) -> torch.Tensor:
    """Inputs ``(x, 1)``: a network with biases on ``x`` is a bias-free network on these."""
    return torch.cat([x, torch.ones_like(x[:, :1])], dim=1)


def spread_pairs(n: int, width: int, *, seeds: int, seed: int = 0, device=None) -> list[tuple[Network, Network]]:
    """``seeds`` pairs of independent :func:`spread_network` s, for the worst-case rate.

    Parameters
    ----------
    n : int
        Input dimension.
    width : int
        ``m``.
    seeds : int
        Number of pairs.
    seed : int
        Offset: pair ``s`` uses the network seeds ``2·seeds·seed + 2s`` and ``+ 1``, so different offsets
        share no network.
    device : str or torch.device, optional
        Default: the book's device.

    Returns
    -------
    list of (Network, Network)

    Examples
    --------
    >>> from nnproofs import barrier
    >>> len(barrier.spread_pairs(2, 8, seeds=3))
    3

    Notes
    -----
    Budget: ``16·seeds·m·(n + 1)`` bytes within ``budget.memory()``.
    """
    n, width, seeds = positive_int("n", n), positive_int("width", width), positive_int("seeds", seeds)
    device = _device(device)
    work, memory = costs.networks(2 * seeds, width, n)
    costs.refuse("n, width and seeds", (n, width, seeds), work=work, memory=memory)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an int in [0, 2**63), got {seed!r:.60}")
    base = 2 * seeds * seed
    return [(spread_network(n, width, seed=base + 2 * s, device=device),
             spread_network(n, width, seed=base + 2 * s + 1, device=device)) for s in range(seeds)]


def tight_pair(device=None, n: int = 2):
    """A pair on which the barrier nearly attains the certificate, for both covers and both losses.

    Parameters
    ----------
    device : str or torch.device, optional
        Default: the book's device.
    n : int
        Input dimension, 2 or 3.

    Returns
    -------
    A, B : Network
        Width 6 on ℝⁿ. ``B`` has two heavy units on cover centres and four with ``a = 0`` off them, in another
        order than ``A``'s (the path must end at that order, not at ``B``'s canonical form).
    x : tensor (3, n)
        Samples of norms 1, 1/2 and 2/5.
    y : tensor (3,)
        Targets 0, 1, 0.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> tuple(A[0].shape), tuple(x.shape)
    ((6, 2), (3, 2))

    Notes
    -----
    ``K = 3`` grid centres (at 60°, 180°, 300° for ``n = 2``; :func:`sphere_cover` for ``n = 3``). Two heavy
    units of ``A`` on two centres only push the predictions into the losses' linear parts (``|f| > 25``);
    two light units ``a = ∓10`` lie 10° on either side of the third centre ``u``, in the plane of ``u`` and
    ``v`` (for ``n = 2``, at 290° and 310°); two units with ``a = 0``. The samples lie in that plane, 80°
    from ``u``, each orthogonal to one light unit, so merging raises ``|f − y|`` by
    ``10‖x_i‖(sin 10° + cos 70° − cos 80°)``: barrier / certificate is
    ``(sin 10° + cos 70° − cos 80°)/(4 sin 5°) ≈ 0.981``. The norms are skewed (mean 0.633, median 0.5,
    midrange 0.7), so that a certificate built on another statistic of ``‖x‖`` than the mean misses; for
    ``n = 3`` every sample has three non-zero coordinates. Merging moves nothing on ``B``'s side:
    ``μ_B = 0 < μ_A``, so a certificate built on ``min(μ_A, μ_B)``, their mean, or the first side's moment
    alone (audited in both orders, :func:`tight_audits`) misses. Budget: constant work.
    """
    device = book_device.device() if device is None else _device(device)
    if isinstance(n, bool) or not isinstance(n, int) or n not in (2, 3):
        raise ValueError(f"n must be 2 or 3, got {n!r:.60}")
    heavy_1, heavy_2, u = sphere_cover(n, 3, device=device)[[1, 0, 2]]  # n = 2: 180°, 60°, 300°
    v = torch.stack([-u[1], u[0]]) if n == 2 else torch.eye(3, dtype=u.dtype, device=device)[2] - u[2] * u
    v = v / v.norm()  # n = 3: towards the last axis, so that the samples reach far off the first two

    def turned(degrees):
        """``u`` turned by ``degrees`` towards ``v``, in their plane."""
        angle = math.radians(degrees)
        return math.cos(angle) * u + math.sin(angle) * v

    def values(entries):
        return torch.tensor(entries, dtype=torch.float64, device=device)

    samples = torch.stack([turned(-80.0), turned(80.0), turned(-80.0)]) * values([[1.0], [0.5], [0.4]])
    push = [80.0 / float(heavy_1 @ samples[0]), -80.0 / float(heavy_2 @ samples[1])]
    W = torch.stack([heavy_1, turned(-10.0), turned(10.0), heavy_2, heavy_1, heavy_1])
    W = W / W.norm(dim=1, keepdim=True).clamp_min(1.0)
    a = values([push[0], -10.0, 10.0, push[1], 0.0, 0.0])
    W_B = torch.stack([turned(-160.0), turned(-80.0), turned(20.0), turned(70.0), heavy_2, heavy_1])
    W_B = W_B / W_B.norm(dim=1, keepdim=True).clamp_min(1.0)
    a_B = values([0.0, 0.0, 0.0, 0.0, 0.8 * push[1], 0.8 * push[0]])
    return (W, a), (W_B, a_B), samples, values([0.0, 1.0, 0.0])
