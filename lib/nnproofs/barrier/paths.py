"""Paths as explicit segments, each with its guarantee (``GUARANTEES``), and the canonical form of a network."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import torch

from ..validate import finite_real
from .model import Network, _data

EXACT_KINDS = ("prune", "spherize", "consolidate", "free", "transfer")
GUARANTEES = {
    "prune": "function-exact, cost non-increasing",
    "spherize": "function-exact, cost non-increasing",
    "merge": "cost at most its start + L·mean‖x‖·Σ|ã_j|‖w̃_j − u_k(j)‖",
    "consolidate": "function-exact, cost at most its start",
    "free": "function-exact, cost constant",
    "transfer": "function-exact, cost constant",
    "bridge": "cost convex in t: at most the chord between its endpoint costs",
    "line": "none",
    "bezier": "none",
}


@dataclass(frozen=True, eq=False)
class Segment:
    """One piece of a path, ``t ∈ [0, 1] → (W(t), a(t))``.

    ``curve`` is ``"line"`` (``(1−t)θ₀ + tθ₁``), ``"rescale"`` (spherization:
    ``W₀/s(t)``, ``a₀ s(t)``, ``s_j(t) = 1 − t + t r_j`` with ``r = radii``) or ``"bezier"``
    (``(1−t)²θ₀ + 2t(1−t)θ_c + t²θ₁``). A segment with ``reverse=True`` is traversed from
    ``(W1, a1)`` to ``(W0, a0)``: it is the forward segment of the second network, run backwards.
    ``kind`` names the step and its guarantee (``GUARANTEES``); ``side`` is ``"A"``, ``"bridge"`` or ``"B"``.
    """

    kind: str
    side: str
    W0: torch.Tensor
    a0: torch.Tensor
    W1: torch.Tensor
    a1: torch.Tensor
    curve: str = "line"
    radii: torch.Tensor | None = None
    control: Network | None = None
    reverse: bool = False

    @property
    def guarantee(self) -> str:
        return GUARANTEES[self.kind]

    def forward_evaluate(self, ts: torch.Tensor) -> Network:
        """The segment's parameters at forward times ``ts``, ignoring ``reverse``.

        Parameters
        ----------
        ts : tensor (T,)
            Times in ``[0, 1]`` from ``(W0, a0)`` to ``(W1, a1)``.

        Returns
        -------
        W : tensor (T, m, n)
        a : tensor (T, m)

        Examples
        --------
        >>> import torch
        >>> from nnproofs import barrier
        >>> A, B, x, y = barrier.tight_pair()
        >>> segment = barrier.constructive_path(A, B, x).segments[0]
        >>> W, a = segment.forward_evaluate(torch.tensor([0.0, 1.0], dtype=torch.float64))
        >>> torch.equal(W[0], segment.W0) and torch.equal(W[1], segment.W1)
        True

        Notes
        -----
        The ends are exact: ``t = 0`` gives ``(W0, a0)`` and ``t = 1`` gives ``(W1, a1)`` bit for bit, which the
        audit's joint check relies on; on a line, a coordinate equal at both ends keeps that value bit for bit
        (``(1−t)w + tw`` rounds to a neighbour of ``w`` at about one time in twenty). Budget: ``T·m·(n + 1)``
        values.
        """
        t = ts.to(self.W0)[:, None]
        if self.curve == "rescale":
            s = (1 - t) + t * self.radii
            return self.W0 / s[..., None], self.a0 * s
        if self.curve == "bezier":
            Wc, ac = self.control
            b0, b1, b2 = (1 - t) ** 2, 2 * t * (1 - t), t**2
            return (b0[..., None] * self.W0 + b1[..., None] * Wc + b2[..., None] * self.W1,
                    b0 * self.a0 + b1 * ac + b2 * self.a1)
        return (torch.where(self.W0 == self.W1, self.W0, (1 - t)[..., None] * self.W0 + t[..., None] * self.W1),
                torch.where(self.a0 == self.a1, self.a0, (1 - t) * self.a0 + t * self.a1))

    def evaluate(self, ts: torch.Tensor) -> Network:
        """The segment's parameters at times ``ts`` in the path's direction (``reverse`` applied).

        Parameters
        ----------
        ts : tensor (T,)
            Times in ``[0, 1]``.

        Returns
        -------
        W : tensor (T, m, n)
        a : tensor (T, m)

        Examples
        --------
        >>> import torch
        >>> from nnproofs import barrier
        >>> A, _, x, y = barrier.tight_pair()
        >>> last = barrier.constructive_path(A, tuple(t.flip(0) for t in A), x).segments[-1]
        >>> W, a = last.evaluate(torch.tensor([1.0], dtype=torch.float64))
        >>> last.reverse and torch.equal(W[0], last.W0)
        True

        Notes
        -----
        B's steps are its forward segments run backwards. Budget: as :meth:`forward_evaluate`.
        """
        return self.forward_evaluate(1 - ts if self.reverse else ts)

    def reversed(self, side: str) -> Segment:
        """The same segment, traversed the other way, on side ``side``.

        Parameters
        ----------
        side : str
            ``"A"``, ``"bridge"`` or ``"B"``.

        Returns
        -------
        Segment
            Same kind, fields and curve; ``reverse`` flipped.

        Examples
        --------
        >>> from nnproofs import barrier
        >>> A, B, x, y = barrier.tight_pair()
        >>> segment = barrier.constructive_path(A, B, x).segments[0]
        >>> segment.reversed("B").reverse, segment.reversed("B").side
        (True, 'B')

        Notes
        -----
        Budget: constant work (the tensors are shared).
        """
        return Segment(self.kind, side, self.W0, self.a0, self.W1, self.a1, self.curve, self.radii, self.control,
                       not self.reverse)


@dataclass(frozen=True)
class Canonical:
    """A network compressed by spherize + merge + consolidate, with what the certificate needs.

    ``W`` holds every slot at its cell centre, ``a`` is non-zero only on ``slots`` (one per occupied
    cell, the cell's consolidated output weight); ``moment = Σ_j |ã_j| ‖w̃_j − u_{k(j)}‖``.
    """

    W: torch.Tensor
    a: torch.Tensor
    centres: torch.Tensor
    assignment: torch.Tensor
    slots: torch.Tensor
    moment: float


@dataclass(frozen=True, eq=False)
class Path:
    """A piecewise-explicit path between two networks; segment ``i`` is ``t ∈ [i/S, (i+1)/S]``.

    ``moments`` are the merge moments of the two sides, ``Σ_j |ã_j| ‖w̃_j − u_{k(j)}‖`` (``None`` for
    paths that carry no certificate: the baselines); ``info`` records how the path was built.
    """

    segments: tuple[Segment, ...]
    moments: tuple[float, float] | None = None
    info: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.segments, tuple) or not self.segments:
            raise TypeError(f"segments must be a non-empty tuple of Segments, got {type(self.segments).__name__}")
        if self.moments is not None:
            moments = self.moments
            if (not isinstance(moments, (tuple, list)) or len(moments) != 2
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in moments)
                    or not all(math.isfinite(v) and v >= 0 for v in moments)):
                raise ValueError(f"moments must be None or two finite numbers >= 0 (a certificate), got {moments!r:.80}")
            object.__setattr__(self, "moments", (float(moments[0]), float(moments[1])))

    @property
    def start(self) -> Network:
        s = self.segments[0]
        return (s.W1, s.a1) if s.reverse else (s.W0, s.a0)

    @property
    def end(self) -> Network:
        s = self.segments[-1]
        return (s.W0, s.a0) if s.reverse else (s.W1, s.a1)

    @property
    def kinds(self) -> list[str]:
        return [s.kind for s in self.segments]

    def evaluate(self, ts) -> Network:
        """The path's parameters at path times ``ts``; segment ``i`` is ``t ∈ [i/S, (i+1)/S]``.

        Parameters
        ----------
        ts : array_like
            Path times in ``[0, 1]`` (at least one).

        Returns
        -------
        W : tensor (T, m, n), float64
        a : tensor (T, m), float64

        Examples
        --------
        >>> import torch
        >>> from nnproofs import barrier
        >>> A, B, x, y = barrier.tight_pair()
        >>> W, a = barrier.constructive_path(A, B, x).evaluate([0.0, 1.0])
        >>> torch.equal(W[0], A[0]) and torch.equal(W[1], B[0])
        True

        Notes
        -----
        Segments are equally long in path time. Budget: ``T·m·(n + 1)`` values.
        """
        ts = torch.as_tensor(ts, dtype=torch.float64, device=self.segments[0].W0.device).reshape(-1)
        if ts.numel() == 0 or not bool(((ts >= 0) & (ts <= 1)).all()):
            raise ValueError("ts must be a non-empty set of path times in [0, 1]")
        count = len(self.segments)
        index = torch.clamp((ts * count).floor().long(), max=count - 1)
        local = ts * count - index
        m, n = self.segments[0].W0.shape
        W = torch.empty(ts.numel(), m, n, dtype=torch.float64, device=ts.device)
        a = torch.empty(ts.numel(), m, dtype=torch.float64, device=ts.device)
        for i in index.unique().tolist():
            mask = index == i
            W[mask], a[mask] = self.segments[i].evaluate(local[mask])
        return W, a

    def certificate(self, x, lipschitz: float) -> float:
        """Theorem ``thm-barrier-decay``'s bound on the barrier: ``L · mean_i ‖x_i‖ · max(μ_A, μ_B)``.

        Parameters
        ----------
        x : tensor (N, n)
            The data.
        lipschitz : float
            ``L ≥ 0``, the loss's Lipschitz constant.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            For a path without moments (the baselines).

        Examples
        --------
        >>> from nnproofs import barrier
        >>> A, B, x, y = barrier.tight_pair()
        >>> path = barrier.constructive_path(A, B, x, cover="grid")
        >>> path.certificate(x, 0.5) == 0.5 * float(x.norm(dim=1).mean()) * max(path.moments)
        True

        Notes
        -----
        ``μ = Σ_j |ã_j| ‖w̃_j − u_{k(j)}‖``, the merge moments; :func:`audit` checks they cover what the merges
        move. Budget: linear in ``N·n``.
        """
        if self.moments is None:
            raise ValueError("this path carries no certificate (only constructive_path's paths do)")
        lipschitz = finite_real("lipschitz", lipschitz)
        if lipschitz < 0:
            raise ValueError(f"lipschitz must be >= 0, got {lipschitz!r}")
        x = _data(x, n=self.segments[0].W0.shape[1])
        return lipschitz * float(x.norm(dim=1).mean()) * max(self.moments)


def _changed(x0: torch.Tensor, x1: torch.Tensor) -> bool:
    return bool((x0 != x1).any())


def form_problem(segment: Segment) -> str:
    """What keeps ``segment`` from having the form its guarantee's argument uses.

    Parameters
    ----------
    segment : Segment
        One segment of a path.

    Returns
    -------
    str
        ``""`` when the segment has its form, else the reason. The forms: prune, a line with ``W`` fixed
        that zeroes ``a_j`` of dead units (``w_j = 0``) only; spherize, the rescaling curve with
        ``radii = ‖w_j‖ > 0`` ending at ``(W/‖w‖, a‖w‖)``; merge, a chord with ``a`` fixed; consolidate,
        transfer and bridge, a line with ``W`` fixed (``f`` affine in ``t``, the cost convex); free, a line
        with ``a`` fixed that moves only units with ``a_j = 0``.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> path = barrier.constructive_path(A, B, x)
    >>> [barrier.form_problem(s) for s in path.segments] == [""] * len(path.segments)
    True

    Notes
    -----
    Baseline kinds (``line``, ``bezier``) and unknown kinds carry no guarantee, so in a constructive path they
    are a problem. Compared exactly, not to a tolerance. Budget: linear in the segment's size.
    """
    if not isinstance(segment, Segment):
        raise TypeError(f"segment must be a Segment, got {type(segment).__name__}")
    s = segment
    if s.kind not in GUARANTEES or GUARANTEES[s.kind] == "none":
        return f"a {s.kind!r} segment carries no guarantee (kinds with one: {', '.join(EXACT_KINDS)}, merge, bridge)"
    if s.curve != ("rescale" if s.kind == "spherize" else "line"):
        return f"a {s.kind} segment must be {'the rescaling curve' if s.kind == 'spherize' else 'a line'}, got {s.curve!r}"
    if s.kind == "spherize":
        radii = s.W0.norm(dim=1)
        if s.radii is None or _changed(s.radii, radii) or bool((radii == 0).any()):
            return "spherize: radii must be the rows' norms ‖w_j‖ > 0"
        if _changed(s.W1, s.W0 / radii[:, None]) or _changed(s.a1, s.a0 * radii):
            return "spherize: must end at (w_j/‖w_j‖, a_j‖w_j‖)"
        return ""
    if s.kind in ("merge", "free") and _changed(s.a0, s.a1):
        return f"{s.kind}: the output weights a must stay fixed"
    if s.kind == "free" and bool((s.a0[(s.W0 != s.W1).any(dim=1)] != 0).any()):
        return "free: only units with a_j = 0 may move"
    if s.kind in ("prune", "consolidate", "transfer", "bridge") and _changed(s.W0, s.W1):
        return f"{s.kind}: the first-layer weights W must stay fixed"
    if s.kind == "prune" and _changed(s.a1, torch.where(s.W0.norm(dim=1) == 0, torch.zeros_like(s.a0), s.a0)):
        return "prune: only the output weights of dead units (w_j = 0) may go to 0"
    return ""
