"""Losses for Theorem ``thm-barrier-decay``: convex in the prediction and ``L``-Lipschitz, both verified."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from . import costs

HUBER_DELTA = 0.5  # Huber threshold: the loss is δ_H-Lipschitz in the prediction
CONVEXITY_ATOL = 1e-12  # a loss's slopes between neighbouring probes may fall by round-off only
LOSS_PROBE = (1e-3, 100.0, 2e-4, 1e6)  # predictions on which convexity and the Lipschitz constant are verified:
#   spacing 0.001 for |p| ≤ 100, then geometric (each step 2e-4 of |p|) up to |p| = 1e6; a feature
#   narrower than twice the local spacing can pass between two probes
TARGETS_NEAR = tuple(float(v) for v in torch.linspace(-10, 10, 21, dtype=torch.float64))
LOSS_PROBE_TARGETS = {  # per loss: the targets on which it is verified; Loss.outside is 0 only between their extremes
    "huber": TARGETS_NEAR + tuple(s * 10.0**k for k in range(2, 7) for s in (-1, 1)),
    "bce": tuple(float(v) for v in torch.linspace(0, 1, 21, dtype=torch.float64)),
}


PROBE_RESOLUTION = (f"probed at spacing {LOSS_PROBE[0]:g} for |p| ≤ {LOSS_PROBE[1]:g}, then {LOSS_PROBE[2]:g}·|p|"
                    f" up to |p| = {LOSS_PROBE[3]:g}: a feature narrower than the spacing is not seen")


@dataclass(frozen=True)
class Loss:
    """A convex loss ``ℓ(p, y)`` of the prediction ``p``, ``lipschitz``-Lipschitz in ``p``.

    Parameters
    ----------
    name : str
        The key under which it is registered in :data:`LOSSES`.
    lipschitz : float
        ``L > 0``, a Lipschitz constant of ``ℓ(·, y)`` for every target ``y``.
    function : callable
        ``ℓ(p, y)`` on float64 tensors: predictions ``(T, P)``, targets ``(T, 1)`` → values ``(T, P)``.
    targets : tuple of float
        The targets ``y`` at which the probe verifies it (default ``LOSS_PROBE_TARGETS["huber"]``).
    reach : float
        The probe verifies it for predictions ``|p| ≤ reach``.
    proved : str
        Where convexity and ``L`` are proved (a formula or a reference). The audits trust only the proofs of
        the library's own losses (:func:`proof_of`): for any other loss, known to them by its values, the
        probe sees it at ``PROBE_RESOLUTION`` only, so an audit with it is INCONCLUSIVE.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> absolute = barrier.Loss("absolute", 1.0, lambda p, y: (p - y).abs())
    >>> float(absolute(torch.tensor([3.0]), torch.tensor([1.0]))[0])
    2.0
    """

    name: str
    lipschitz: float
    function: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    targets: tuple[float, ...] = LOSS_PROBE_TARGETS["huber"]
    reach: float = LOSS_PROBE[3]
    proved: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty str, got {self.name!r:.60}")
        if (isinstance(self.lipschitz, bool) or not isinstance(self.lipschitz, (int, float))
                or not math.isfinite(self.lipschitz) or self.lipschitz <= 0):
            raise ValueError(f"lipschitz must be a finite number > 0, got {self.lipschitz!r:.60}")
        if not callable(self.function):
            raise TypeError(f"function must be callable ℓ(p, y), got {type(self.function).__name__}")
        targets = self.targets
        if (isinstance(targets, (str, bytes)) or not isinstance(targets, (tuple, list)) or not targets
                or not all(isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t)
                           for t in targets)):
            raise ValueError(f"targets must be a non-empty sequence of finite numbers, got {targets!r:.60}")
        object.__setattr__(self, "targets", tuple(float(t) for t in targets))
        if (isinstance(self.reach, bool) or not isinstance(self.reach, (int, float)) or not math.isfinite(self.reach)
                or not 0 < self.reach <= LOSS_PROBE[3]):
            raise ValueError(f"reach must be a number in (0, {LOSS_PROBE[3]:g}] (predictions probed),"
                             f" got {self.reach!r:.60}")
        object.__setattr__(self, "reach", float(self.reach))
        if not isinstance(self.proved, str):
            raise TypeError(f"proved must be a str (where convexity and L are proved, or empty), got"
                            f" {type(self.proved).__name__}")

    def __call__(self, prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.function(prediction, target)

    def outside(self, predictions: torch.Tensor, targets: torch.Tensor) -> float:
        """How far ``predictions`` and ``targets`` leave the range on which the loss was verified.

        Parameters
        ----------
        predictions : tensor
            Predictions ``p``.
        targets : tensor
            Targets ``y``.

        Returns
        -------
        float
            The largest of ``max|p| − reach`` and the distance of a target to the nearest verified target;
            0 when every prediction is within reach and every target was probed.

        Examples
        --------
        >>> import torch
        >>> from nnproofs import barrier
        >>> bce = barrier.LOSSES["bce"]
        >>> bce.outside(torch.zeros(3), torch.tensor([0.0, 0.5, 1.0]))
        0.0
        >>> round(bce.outside(torch.zeros(1), torch.tensor([0.52], dtype=torch.float64)), 12)
        0.02

        Notes
        -----
        Budget: targets × verified targets comparisons.
        """
        probed = torch.tensor(self.targets, dtype=torch.float64, device=targets.device)
        distance = (targets.reshape(-1, 1) - probed).abs().min(dim=1).values.max()
        return max(0.0, float(predictions.abs().max()) - self.reach, float(distance))


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
    "huber": Loss("huber", HUBER_DELTA, _huber,
                  proved="ℓ' = clamp(p − y, −δ_H, δ_H): non-decreasing (convex), |ℓ'| ≤ δ_H"),
    "bce": Loss("bce", 1.0, _bce, LOSS_PROBE_TARGETS["bce"],
                proved="ℓ' = σ(p) − y: non-decreasing (convex), |ℓ'| ≤ 1 for y ∈ [0, 1]"),
}


_SHIPPED = dict(LOSSES)  # the library's own losses, whose proofs are in their definitions above


def proof_of(loss: Loss) -> str:
    """The proof that ``loss`` is convex and ``L``-Lipschitz, if the library carries one (else ``""``).

    Parameters
    ----------
    loss : Loss
        Any loss.

    Returns
    -------
    str
        ``loss.proved`` when ``loss`` is one of the library's own losses (its name, its function object
        and its ``L``), else ``""``.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> barrier.proof_of(barrier.LOSSES["huber"]).startswith("ℓ' = clamp")
    True
    >>> barrier.proof_of(barrier.Loss("copy", 0.5, barrier.LOSSES["huber"].function))
    ''

    Notes
    -----
    A reader's ``proved`` string is a claim the library cannot check (a spike between the probe's points
    would break it unseen), so only the shipped proofs make an audit PASSED. Budget: constant work.
    """
    if not isinstance(loss, Loss):
        raise TypeError(f"loss must be a Loss, got {type(loss).__name__}")
    shipped = _SHIPPED.get(loss.name)
    own = shipped is not None and shipped.function is loss.function and shipped.lipschitz == loss.lipschitz
    return loss.proved if own else ""


def get_loss(loss: str) -> Loss:
    """The loss registered as ``loss`` in :data:`LOSSES`, its convexity and Lipschitz constant probed.

    Parameters
    ----------
    loss : str
        A key of :data:`LOSSES`: ``'huber'``, ``'bce'``, or one a reader registered.

    Returns
    -------
    Loss
        The loss, after the probe found its slopes non-decreasing and at most ``L`` in size.

    Raises
    ------
    ValueError
        When the probe finds a falling slope or one steeper than ``L``.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> barrier.get_loss("huber").lipschitz
    0.5

    Notes
    -----
    The probe (``LOSS_PROBE``) is a finite sample (``PROBE_RESOLUTION``): for a loss without ``Loss.proved``
    it is all the audit knows, and :func:`audit` says INCONCLUSIVE. Budget: about 10⁷ evaluations, once.
    """
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    if LOSSES[loss].name != loss:  # the data's checks (y ∈ [0, 1] for bce) and proof_of go by the name
        raise ValueError(f"loss {loss!r} is registered as a Loss named {LOSSES[loss].name!r}: register a loss under"
                         " its own name")
    return _verified(LOSSES[loss])


def verified_for(loss: Loss, targets: torch.Tensor, predictions: torch.Tensor) -> Loss:
    """``loss`` verified (as :func:`get_loss`) also at the data's ``targets`` that it was not probed at, on the
    probe's predictions ``|p| ≤ 2·max|predictions| + 1`` rounded up to a power of 2 (capped at
        ``LOSS_PROBE[3]``): the returned loss has those targets and that ``reach``. Budget: targets × probed
    predictions within ``budget.work()``."""
    new = tuple(sorted(set(targets.reshape(-1).tolist()) - set(loss.targets)))
    if not new:
        return loss
    reach = min(LOSS_PROBE[3], 2.0 ** math.ceil(math.log2(2 * float(predictions.abs().max()) + 1)))  # cached
    points = int((_probe().abs() <= reach).sum())
    costs.refuse("y (targets the loss is verified at)", len(new), work=costs.ELEMENT * len(new) * points,
                 memory=8.0 * len(new) * points)
    _verified(Loss(loss.name, loss.lipschitz, loss.function, new, reach, loss.proved))
    return Loss(loss.name, loss.lipschitz, loss.function, loss.targets + new, min(reach, loss.reach), loss.proved)


@functools.lru_cache(maxsize=1)
def _probe() -> torch.Tensor:
    fine, near, ratio, far = LOSS_PROBE
    inner = torch.arange(0.0, near, fine, dtype=torch.float64)
    outer = near * (1 + ratio) ** torch.arange(0, int(math.log(far / near) / math.log1p(ratio)) + 2, dtype=torch.float64)
    half = torch.cat([inner, outer.clamp(max=far)]).unique()
    return torch.cat([-half.flip(0), half]).unique()


FINGERPRINT = torch.linspace(-64.0, 64.0, 257, dtype=torch.float64)  # predictions, off the probe's grid too


def _verified(loss: Loss) -> Loss:
    """:func:`_verify` once per loss *and per behaviour*: the cache key holds the loss's values on
    :data:`FINGERPRINT`, so a loss whose function changes after its first check (a module constant such as
    ``HUBER_DELTA`` changed, a callable with state) is checked again instead of reusing the old verdict."""
    y = torch.tensor(loss.targets, dtype=torch.float64)[:, None]
    values = loss(FINGERPRINT.expand(len(y), -1), y)
    fingerprint = values.detach().cpu().numpy().tobytes() if isinstance(values, torch.Tensor) else repr(values)
    return _verify(loss, fingerprint)


@functools.lru_cache(maxsize=16)
def _verify(loss: Loss, fingerprint) -> Loss:
    p = _probe()
    p = p[p.abs() <= loss.reach]
    y = torch.tensor(loss.targets, dtype=torch.float64)[:, None]
    values = loss(p.expand(len(y), -1), y)
    if values.shape != (len(y), len(p)) or not bool(torch.isfinite(values).all()):
        raise ValueError(f"loss {loss.name!r} must map predictions (T, P) and targets (T, 1) to finite values (T, P)")
    h = p[1:] - p[:-1]
    slopes = (values[:, 1:] - values[:, :-1]) / h
    drop = slopes[:, 1:] - slopes[:, :-1]
    allowed = CONVEXITY_ATOL * (1 + values[:, 1:-1].abs()) / torch.minimum(h[1:], h[:-1])
    if bool((drop < -allowed).any()):
        i, j = divmod(int((drop + allowed).argmin()), drop.shape[1])
        raise ValueError(f"loss {loss.name!r} is not convex in the prediction: its slope falls by"
                         f" {-float(drop[i, j]):.3g} at p = {float(p[j + 1]):.6g}, y = {float(y[i, 0]):g}; the bridge"
                         " of Theorem thm-barrier-decay needs a convex loss")
    roundoff = 8 * torch.finfo(torch.float64).eps * (1 + values[:, 1:].abs()) / h  # a difference quotient's
    over = slopes.abs() - roundoff  # round-off: a few ulps of the values over the spacing
    slope = float(over.max())
    if slope > loss.lipschitz * (1 + 1e-9):
        i, j = divmod(int(over.argmax()), slopes.shape[1])
        raise ValueError(f"loss {loss.name!r} declares lipschitz = {loss.lipschitz:g} but its difference quotients"
                         f" reach {slope:.6g} (at p = {float(p[j]):.6g}, y = {float(y[i, 0]):g}); the merge"
                         " certificate needs a true Lipschitz constant")
    return loss
