"""Losses for Theorem ``thm-barrier-decay``: convex in the prediction and ``L``-Lipschitz, both verified."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

HUBER_DELTA = 0.5  # Huber threshold: the loss is δ_H-Lipschitz in the prediction
CONVEXITY_ATOL = 1e-12  # a loss's second differences on LOSS_PROBE may fall below 0 by round-off only
LOSS_PROBE = (-40.0, 40.0, 4001)  # predictions (start, stop, count) on which a loss's convexity and Lipschitz
#   constant are verified, for the targets LOSS_PROBE_TARGETS; spacing 0.02, logits up to ±40
LOSS_PROBE_TARGETS = (0.0, 0.25, 0.5, 1.0)


@dataclass(frozen=True)
class Loss:
    """A convex loss ``ℓ(p, y)`` of the prediction ``p`` that is ``lipschitz``-Lipschitz in ``p``."""

    name: str
    lipschitz: float
    function: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

    def __call__(self, prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.function(prediction, target)


def _huber(p: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return nn.functional.huber_loss(p, y.expand_as(p), reduction="none", delta=HUBER_DELTA)


def _bce(p: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``−y log σ(p) − (1−y) log(1−σ(p)) = log(1 + e^p) − yp``; derivative ``σ(p) − y ∈ [−1, 1]``.

    ``log(1 + e^p)`` is evaluated as ``ρ(p) + log1p(e^{−|p|})``, exact to round-off for every ``p``
    (``torch.nn.functional.softplus`` switches to ``p`` above 20, a jump of ``2·10^{−9}`` that would break
    the convexity checks at 1e-12).
    """
    return torch.relu(p) + torch.log1p(torch.exp(-p.abs())) - y * p


LOSSES = {
    "huber": Loss("huber", HUBER_DELTA, _huber),
    "bce": Loss("bce", 1.0, _bce),
}


def get_loss(loss: str) -> Loss:
    """The loss named ``loss`` (a key of ``LOSSES``: ``'huber'``, ``'bce'``), verified convex and Lipschitz.

    The proof of Theorem ``thm-barrier-decay`` uses two properties of ``ℓ(·, y)``: convexity (the bridge
    stays below its larger endpoint) and the Lipschitz constant ``L`` (the merge certificate). Both are
    verified on a grid of predictions (``LOSS_PROBE``) for the targets ``LOSS_PROBE_TARGETS``: second
    differences ``≥ −CONVEXITY_ATOL·(1 + |ℓ|)`` and difference quotients ``≤ L(1 + 1e-9)``. A loss that
    fails raises ``ValueError``, so a non-convex loss added to ``LOSSES`` cannot pass an audit.
    """
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    return _verified(LOSSES[loss])


@functools.lru_cache(maxsize=16)
def _verified(loss: Loss) -> Loss:
    start, stop, count = LOSS_PROBE
    p = torch.linspace(start, stop, count, dtype=torch.float64)
    y = torch.tensor(LOSS_PROBE_TARGETS, dtype=torch.float64)[:, None]
    values = loss(p.expand(len(y), -1), y)
    if values.shape != (len(y), count) or not bool(torch.isfinite(values).all()):
        raise ValueError(f"loss {loss.name!r} must map predictions (T, P) and targets (T, 1) to finite values (T, P)")
    second = values[:, 2:] - 2 * values[:, 1:-1] + values[:, :-2]
    allowed = CONVEXITY_ATOL * (1 + values[:, 1:-1].abs())
    if bool((second < -allowed).any()):
        i, j = divmod(int((second + allowed).argmin()), second.shape[1])
        raise ValueError(f"loss {loss.name!r} is not convex in the prediction: second difference"
                         f" {float(second[i, j]):.3g} at p = {float(p[j + 1]):.3g}, y = {float(y[i, 0]):g}; the bridge"
                         " of Theorem thm-barrier-decay needs a convex loss")
    slope = float(((values[:, 1:] - values[:, :-1]) / (p[1] - p[0])).abs().max())
    if slope > loss.lipschitz * (1 + 1e-9):
        raise ValueError(f"loss {loss.name!r} declares lipschitz = {loss.lipschitz:g} but its difference quotients"
                         f" reach {slope:.6g}; the merge certificate needs a true Lipschitz constant")
    return loss
