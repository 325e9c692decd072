"""The path of Theorem ``thm-barrier-decay``: prune and spherize, merge, consolidate, the bridge and the
transfers, then the second network's steps reversed."""

from __future__ import annotations

import torch

from ..validate import positive_int
from . import costs
from .covers import ball_cover, sphere_cover, weighted_kmeans
from .model import as_pair, _choice, _data
from .paths import Canonical, Path, Segment, _changed

COVERS = ("adaptive", "grid")
SPHERIZATIONS = ("curve", "chord", "none")
BRIDGES = ("output", "joint")


def default_cells(n: int, width: int) -> int:
    """The theorem's number of cells ``K`` for networks of width ``width`` on ℝⁿ.

    Parameters
    ----------
    n : int
        Input dimension.
    width : int
        ``m``.

    Returns
    -------
    int
        ``⌊m/2⌋`` for ``n ≥ 2`` (so that ``K_A + K_B ≤ m``), 2 for ``n = 1`` (the sphere S⁰).

    Examples
    --------
    >>> from nnproofs import barrier
    >>> barrier.default_cells(2, 11), barrier.default_cells(1, 11)
    (5, 2)

    Notes
    -----
    Budget: constant work.
    """
    n, width = positive_int("n", n), positive_int("width", width)
    return 2 if n == 1 else max(1, width // 2)


def _compress(W, a, side: str, *, cover: str, cells: int, spherization: str) -> tuple[list[Segment], Canonical]:
    """The forward segments network → canonical form (prune, spherize, merge, consolidate) and the form."""
    m, n = W.shape
    segments = []
    radius = W.norm(dim=1)
    dead = radius == 0
    if bool(dead.any()):  # a_j ρ(0·x) = 0: drop a_j (ℓ1 decreases), then give w_j a direction for free
        if bool((a[dead] != 0).any()):
            a1 = torch.where(dead, torch.zeros_like(a), a)
            segments.append(Segment("prune", side, W, a, W, a1))
            a = a1
        W1 = W.clone()
        W1[dead] = torch.nn.functional.one_hot(torch.tensor(0, device=W.device), n).to(W)
        segments.append(Segment("free", side, W, a, W1, a))
        W, radius = W1, W1.norm(dim=1)
    sphere = spherization != "none"
    if sphere and bool((radius != 1).any()):
        Ws, a_s = W / radius[:, None], a * radius
        curve = {"curve": dict(curve="rescale", radii=radius), "chord": {}}[spherization]
        segments.append(Segment("spherize", side, W, a, Ws, a_s, **curve))
        W, a = Ws, a_s
    if n == 1 and sphere:
        centres = sphere_cover(1, 2, device=W.device)
    elif cover == "grid":
        centres = sphere_cover(n, cells, device=W.device) if sphere else ball_cover(n, cells, device=W.device)
    else:
        centres = weighted_kmeans(W, a, cells, sphere=sphere)
    assignment = torch.cdist(W, centres).argmin(1)
    U = centres[assignment]
    moment = float((a.abs() * (W - U).norm(dim=1)).sum())
    if _changed(W, U):
        segments.append(Segment("merge", side, W, a, U, a))
        W = U
    totals = torch.zeros(len(centres), dtype=a.dtype, device=a.device).index_add_(0, assignment, a)
    order = torch.argsort(-a.abs(), stable=True)  # representative of a cell: its member with the largest |ã_j|
    first = torch.full((len(centres),), m, dtype=torch.long, device=a.device)
    first.scatter_reduce_(0, assignment[order], torch.arange(m, device=a.device), reduce="amin")
    occupied = (first < m) & (totals != 0)
    slots = order[first[occupied]]
    a_canonical = torch.zeros_like(a)
    a_canonical[slots] = totals[occupied]
    if _changed(a, a_canonical):
        segments.append(Segment("consolidate", side, W, a, W, a_canonical))
    return segments, Canonical(W, a_canonical, centres, assignment, slots, moment)


def _bridge(A: Canonical, B: Canonical, *, bridge: str) -> list[Segment]:
    """Segments from canonical A to canonical B: free moves, the output-weight bridge, transfers.

    B's units are first parked in temporary slots ``t_k`` that are free in canonical A: ``t_k = r_k``
    (B's own slot) unless ``r_k`` is one of A's slots, then a slot outside both. That needs
    ``K_A + K_B ≤ m`` (counting occupied cells) and makes every later transfer conflict-free.
    """
    m, n = A.W.shape
    need = A.slots.numel() + B.slots.numel()
    if need > m:
        if n == 1:
            hint = "in 1-D each network that uses both directions ±1 occupies 2 cells, so this construction needs m >= 4"
        elif m < 2:
            hint = f"for n = {n} this construction needs m >= 2 (one occupied cell per network)"
        else:
            hint = f"pass fewer cells (cells <= m // 2 = {m // 2} guarantees K_A + K_B <= m)"
        raise ValueError(f"the bridge needs K_A + K_B = {A.slots.numel()} + {B.slots.numel()} = {need} slots,"
                         f" but the networks have m = {m}: {hint}")
    in_A = torch.zeros(m, dtype=torch.bool, device=A.W.device)
    in_A[A.slots] = True
    in_B = torch.zeros_like(in_A)
    in_B[B.slots] = True
    spare = iter((~in_A & ~in_B).nonzero()[:, 0].tolist())
    temporary = torch.tensor([next(spare) if bool(in_A[r]) else int(r) for r in B.slots.tolist()],
                             dtype=torch.long, device=A.W.device)
    segments = []
    W, a = A.W, A.a
    W_parked = W.clone()
    W_parked[temporary] = B.W[B.slots]
    a_mid = torch.zeros_like(a)
    a_mid[temporary] = B.a[B.slots]
    if bridge == "output":
        if _changed(W, W_parked):
            segments.append(Segment("free", "bridge", W, a, W_parked, a))
        segments.append(Segment("bridge", "bridge", W_parked, a, W_parked, a_mid))
    else:  # control: first-layer weights move during the bridge
        segments.append(Segment("bridge", "bridge", W, a, W_parked, a_mid))
    W, a = W_parked, a_mid
    busy = torch.zeros_like(in_A)
    busy[temporary] = True
    W1 = torch.where(busy[:, None], W, B.W)  # every free slot to B's layout, B's own slots included
    if _changed(W, W1):
        segments.append(Segment("free", "bridge", W, a, W1, a))
        W = W1
    if _changed(a, B.a):  # units parked away from their slot move there: a transfers between equal directions
        segments.append(Segment("transfer", "bridge", W, a, W, B.a))
        a = B.a
    if _changed(W, B.W):
        segments.append(Segment("free", "bridge", W, a, B.W, a))
    return segments


def constructive_path(A, B, x, *, cover: str = "adaptive", cells: int | None = None,
                      spherization: str = "curve", bridge: str = "output") -> Path:
    """The path of Theorem ``thm-barrier-decay`` from network ``A`` to network ``B``, segment by segment.

    Parameters
    ----------
    A, B : Network
        Pairs ``(W (m, n), a (m,))`` (or bias-free ``Sequential`` networks) with ``‖w_j‖ ≤ 1``.
    x : tensor (N, n)
        The data; it fixes ``n`` and the device (the path itself does not depend on it).
    cover : {"adaptive", "grid"}
        ``"grid"``: a fixed cover of S^{n−1} (:func:`sphere_cover`, the theorem's); ``"adaptive"``:
        ``|ã|``-weighted spherical k-means (:func:`weighted_kmeans`).
    cells : int, optional
        The number ``K`` of cells, default ``⌊m/2⌋`` (for ``n = 1`` the cover is S⁰ = {±1}).
    spherization : {"curve", "chord", "none"}
        ``"chord"`` and ``"none"`` are negative controls: the function changes; the ball is covered.
    bridge : {"output", "joint"}
        ``"joint"`` (a negative control) moves first-layer weights during the bridge: convexity is lost.

    Returns
    -------
    Path
        Segments prune/free, spherize, merge, consolidate (A's side), free moves, the bridge, transfers,
        and B's side reversed, with the certificate's moments (:meth:`Path.certificate`).

    Raises
    ------
    ValueError
        When the networks are infeasible or mismatched, or the bridge needs more slots than the networks
        have (``K_A + K_B > m`` occupied cells).

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> barrier.constructive_path(A, B, x, cover="grid").kinds[:3]
    ['merge', 'consolidate', 'free']

    Notes
    -----
    Budget: the cover or k-means and the assignment (``costs.path``) within ``budget.work()``.
    """
    with torch.no_grad():
        (WA, aA), (WB, aB) = as_pair(A, B)
        m, n = WA.shape
        _data(x, n=n)
        cover = _choice("cover", cover, COVERS)
        spherization = _choice("spherization", spherization, SPHERIZATIONS)
        bridge = _choice("bridge", bridge, BRIDGES)
        cells = default_cells(n, m) if cells is None else positive_int("cells", cells)
        work, memory = costs.path(m, n, cover, cells)
        costs.refuse("A, B and cells", (tuple(WA.shape), cells), work=work, memory=memory)
        options = dict(cover=cover, cells=cells, spherization=spherization)
        segments_A, canonical_A = _compress(WA, aA, "A", **options)
        segments_B, canonical_B = _compress(WB, aB, "B", **options)
        segments = (segments_A + _bridge(canonical_A, canonical_B, bridge=bridge)
                    + [s.reversed("B") for s in reversed(segments_B)])
        info = {"cover": cover, "cells": cells, "spherization": spherization, "bridge": bridge,
                "masses": tuple(float((net[1] * net[0].norm(dim=1)).abs().sum()) for net in ((WA, aA), (WB, aB))),
                "occupied": (int(canonical_A.slots.numel()), int(canonical_B.slots.numel())),
                "canonical": (canonical_A, canonical_B)}
        return Path(tuple(segments), (canonical_A.moment, canonical_B.moment), info)
