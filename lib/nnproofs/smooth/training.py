"""Training small fully connected networks in float64, for chapter 1's trained comparisons.

Chapter 1 trains two kinds of networks: the ReLU and smooth networks of a fixed architecture that
meet the piece-count floor (Theorem ``thm-relu-floor``), and the one-hidden-layer networks of the
learning curves (Theorem ``thm-erm-rate``). They are tiny (at most a few hundred parameters) or
shallow, so the loss and its gradient are computed in numpy with hand-written backpropagation and
minimised by a small BFGS (:func:`bfgs`) with scipy's Wolfe line search. The library paths were measured
on the chapter's floor check (six ReLU and six GELU fits, same seeds, same shared 2-core machine, minutes
apart): ``torch.optim.LBFGS`` (strong Wolfe, history 100, no early stop) took 107-197 s per check and its GELU fits
stayed up to 9x above the ReLU floor (the separation needs them below it); scipy's ``L-BFGS-B`` fed by torch's
autograd took 65-68 s and reached the separation; this module 10-14 s. At these sizes torch's per-call
overhead dominates.
The trained weights are then copied into an ordinary ``torch.nn.Sequential`` of ``Linear`` and
activation modules (ReLU networks are exactly what :func:`nnproofs.pieces.linear_pieces` counts).

Networks are trained on ``z = 2x - 1 ∈ [-1, 1]^d`` (better conditioned) and the affine change of
variables is folded into the first layer, so the returned module takes ``x ∈ [0, 1]^d``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy import optimize, special
from torch import nn

from ..validate import positive_int
from . import gadgets as sg


RESTARTS = 4  # consecutive line-search failures, each restarting from a ten times smaller identity, before stopping
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


def _forward(name: str, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``σ(y)`` and ``σ'(y)`` elementwise."""
    if name == "relu":
        return np.maximum(y, 0.0), (y > 0).astype(y.dtype)
    if name == "gelu":
        cdf = torch.special.ndtr(torch.from_numpy(y)).numpy()  # twice as fast as scipy's ndtr
        pdf = np.exp(-0.5 * y * y) * _INV_SQRT_2PI
        return y * cdf, cdf + y * pdf
    if name == "silu":
        s = special.expit(y)
        return y * s, s * (1.0 + y * (1.0 - s))
    if name == "softplus":
        return np.logaddexp(0.0, y), special.expit(y)
    if name == "tanh":
        t = np.tanh(y)
        return t, 1.0 - t * t
    s = special.expit(y)
    return s, s * (1.0 - s)


@dataclass
class _MLP:
    """Weights ``[(W_1, b_1), ..., (W_{H+1}, b_{H+1})]`` flattened into one vector for scipy."""

    sizes: tuple[int, ...]  # (d, width, ..., width, 1)
    activation: str

    def unflatten(self, theta: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        maps, i = [], 0
        for n_in, n_out in zip(self.sizes[:-1], self.sizes[1:]):
            w = theta[i : i + n_in * n_out].reshape(n_out, n_in)
            i += n_in * n_out
            maps.append((w, theta[i : i + n_out]))
            i += n_out
        return maps

    def loss_and_gradient(self, theta: np.ndarray, z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
        """Mean squared error ``mean((Φ(z) - y)²)`` and its gradient (backpropagation)."""
        maps = self.unflatten(theta)
        activations, slopes = [z], []
        for w, b in maps[:-1]:
            value, slope = _forward(self.activation, activations[-1] @ w.T + b)
            activations.append(value)
            slopes.append(slope)
        w_out, b_out = maps[-1]
        residual = activations[-1] @ w_out.T[:, 0] + b_out[0] - y
        n = y.shape[0]
        loss = float(residual @ residual) / n
        delta = (2.0 / n) * residual[:, None]  # d loss / d output, shape (n, 1)
        grads = []
        for layer in range(len(maps) - 1, -1, -1):
            w, _ = maps[layer]
            grads.append((delta.T @ activations[layer], delta.sum(0)))
            if layer:
                delta = (delta @ w) * slopes[layer - 1]
        grads.reverse()
        return loss, np.concatenate([np.concatenate([gw.reshape(-1), gb]) for gw, gb in grads])

    def to_module(self, theta: np.ndarray, *, device=None) -> nn.Sequential:
        """The trained network as ``Sequential(Linear, σ, ..., Linear)`` on ``x = (z + 1)/2``."""
        maps = self.unflatten(theta)
        w1, b1 = maps[0]
        maps[0] = (2.0 * w1, b1 - w1.sum(1))  # z = 2x - 1 folded into the first layer
        layers: list[nn.Module] = []
        for index, (w, b) in enumerate(maps):
            linear = nn.Linear(w.shape[1], w.shape[0], dtype=torch.float64, device=device)
            with torch.no_grad():
                linear.weight.copy_(torch.from_numpy(np.ascontiguousarray(w)))
                linear.bias.copy_(torch.from_numpy(np.ascontiguousarray(b)))
            if index:
                layers.append(nn.ReLU() if self.activation == "relu" else sg.module(self.activation))
            layers.append(linear)
        net = nn.Sequential(*layers)
        net.requires_grad_(False)
        return net


def initial_weights(sizes: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """First layer: units ``σ(w (z - c))`` with ``|w| ~ U[1, 3]``, random sign, centres ``c ~ U[-1, 1]^d``
    (so ReLU kinks and smooth transitions start inside the domain); later layers: PyTorch's default
    ``U(±1/√fan_in)``; output layer zero (the first iterations then fit it)."""
    parts = []
    d, width = sizes[0], sizes[1]
    direction = rng.normal(size=(width, d))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    w = direction * rng.uniform(1.0, 3.0, size=(width, 1))
    centre = rng.uniform(-1.0, 1.0, size=(width, d))
    parts += [w.reshape(-1), -(w * centre).sum(1)]
    for n_in, n_out in zip(sizes[1:-2], sizes[2:-1]):
        bound = 1.0 / np.sqrt(n_in)
        parts += [rng.uniform(-bound, bound, size=n_out * n_in), rng.uniform(-bound, bound, size=n_out)]
    parts += [np.zeros(sizes[-2]), np.zeros(1)]
    return np.concatenate(parts)


def fit_network(x: torch.Tensor, y: torch.Tensor, *, hidden_layers: int, width: int, activation: str,
                iterations: int, seed: int = 0, device=None) -> nn.Sequential:
    """A network of ``hidden_layers`` hidden layers of ``width`` units fitted to ``(x, y)`` by BFGS.

    Minimises the mean squared error in float64 for at most ``iterations`` quasi-Newton steps from
    :func:`initial_weights` (seeded), and returns the module on ``device`` (default: ``x``'s device).
    """
    name = sg.activation_name(activation, trainable=True)
    hidden_layers, width = positive_int("hidden_layers", hidden_layers), positive_int("width", width)
    iterations = positive_int("iterations", iterations)
    if not isinstance(x, torch.Tensor) or x.ndim != 2 or not isinstance(y, torch.Tensor) or y.shape != (x.shape[0],):
        raise ValueError("x must be an (n, d) tensor and y an (n,) tensor")
    device = x.device if device is None else device
    z = 2.0 * x.detach().to("cpu", torch.float64).numpy() - 1.0
    target = y.detach().to("cpu", torch.float64).numpy()
    mlp = _MLP(sizes=(z.shape[1],) + (width,) * hidden_layers + (1,), activation=name)
    theta0 = initial_weights(mlp.sizes, np.random.default_rng(seed))
    theta = bfgs(lambda t: mlp.loss_and_gradient(t, z, target), theta0, iterations)
    return mlp.to_module(theta, device=device)


def bfgs(loss_and_gradient: Callable[[np.ndarray], tuple[float, np.ndarray]], theta: np.ndarray,
         iterations: int) -> np.ndarray:
    """Minimise by BFGS with a Wolfe line search; the inverse-Hessian update costs ``O(n²)``.

    (scipy's ``minimize(method="BFGS")`` updates with two ``n x n`` matrix products, ``O(n³)`` per
    step, and its ``L-BFGS-B`` fed by torch's autograd took about 6x as long per fit at the chapter's
    sizes.) Stops after ``iterations`` steps. When the line search fails, the inverse Hessian restarts
    as a multiple of the identity, ten times smaller at each consecutive failure (a first steepest-descent
    step can overshoot by orders of magnitude); after :data:`RESTARTS` consecutive failures it stops.
    """
    cache: dict[bytes, tuple[float, np.ndarray]] = {}

    def evaluate(t: np.ndarray) -> tuple[float, np.ndarray]:
        key = t.tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = loss_and_gradient(t)
        return cache[key]

    loss, grad = evaluate(theta)
    inverse, fresh, failures = np.eye(theta.size), True, 0
    previous_loss = None
    for _ in range(iterations):
        direction = -inverse @ grad
        with warnings.catch_warnings():  # a failed search returns None, handled below
            warnings.filterwarnings("ignore", message=r"(The line search algorithm|Rounding errors prevent the line"
                                    r" search)", category=RuntimeWarning)
            step, *_, new_loss, _, new_grad = optimize.line_search(
                lambda t: evaluate(t)[0], lambda t: evaluate(t)[1], theta, direction, gfk=grad, old_fval=loss,
                old_old_fval=previous_loss)
        if step is None or new_grad is None:
            failures += 1
            if failures > RESTARTS:
                break
            inverse, fresh, previous_loss = np.eye(theta.size) * 0.1 ** (failures - 1), True, None
            continue
        failures = 0
        s = step * direction
        y = new_grad - grad
        theta, previous_loss, loss, grad = theta + s, loss, new_loss, new_grad
        sy = float(s @ y)
        if sy <= 0.0:
            continue
        if fresh:
            inverse = np.eye(theta.size) * (sy / float(y @ y))  # scale the first estimate (Nocedal and Wright, eq. 6.20)
            fresh = False
        rho = 1.0 / sy
        hy = inverse @ y
        inverse += (rho + rho * rho * float(y @ hy)) * np.outer(s, s) - rho * (np.outer(hy, s) + np.outer(s, hy))
    return theta


def fit_target(f: Callable, *, hidden_layers: int, width: int, activation: str, iterations: int,
               points: int = 513, seed: int = 0, device=None) -> nn.Sequential:
    """:func:`fit_network` on ``points`` equispaced samples of the 1-D target ``f`` on ``[0, 1]`` (no noise)."""
    points = positive_int("points", points)
    x = torch.linspace(0.0, 1.0, points, dtype=torch.float64, device=device)[:, None]
    return fit_network(x, f(x).reshape(-1), hidden_layers=hidden_layers, width=width, activation=activation,
                       iterations=iterations, seed=seed, device=device)
