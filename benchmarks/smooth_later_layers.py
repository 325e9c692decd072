"""Chapter 1: what a sound bound between samples costs on the construction's later σ layers (an open limit of the check).

The rate check resolves the first σ layer between samples exactly (its pre-activations are affine in x). For the
later layers this script measures a sound alternative to the opt-in ``every_layer`` bisection: on every cell
``[c - r, c + r]`` each later pre-activation is enclosed by a first-order Taylor model ``v + s (x - c) ± R`` with a
rigorous remainder, propagated *per group of units that share an input direction* (rows of ``W_l`` proportional:
the gadgets' ``b ± δy`` units, the identity pairs, a step's units), so that the gadgets' ``1/δ²`` cancellation is
tracked: through a group the remainder is carried by the exact derivative of the group's 1-D function at the
centre, plus ``½ Σ |u_j| a_j² sup|σ''| (|s| r + R)²``. Plain per-unit remainders grow by ``~1/δ ≈ 6e4`` per gadget
layer (printed as ``per-unit``). Cells are bisected from the ``K²`` fine cells until every unit of the layers
enclosed moves by at most ``evaluation.STEP`` where σ is not linear.

Measured (k = 1, chapter target, one CPU core): grouping keeps the enclosures tight away from the bands; of the
cells between the check's own sample points at K = 4 (GELU) it leaves 2%, 20%, 20%, 36%, 36%, 36% unresolved
counting layers 1, 1-2, ..., 1-6, where per-unit remainders leave 2%, 20%, 32%, 67%, 90%, 90%. But the
construction's own units in the bands are steep by design: resolving layers 2-3 adds ~1e4 points at K = 4, ~5e4 at
K = 8 and ~2e5 at K = 16 for GELU (58 s CPU, 26 bisection levels; tanh exceeds 2^18 points at K = 16), 40x the
first layer's points; all six layers need 2e5 points at K = 4 (32 levels) and exceed 2^18 at K = 8 for GELU. So a
sound default bound on the later layers, with this criterion, does not fit the chapter's 60 s. Run:
``python benchmarks/smooth_later_layers.py`` (a few minutes of CPU).
"""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F

from nnproofs import smooth
from nnproofs.smooth import evaluation
from nnproofs.smooth import gadgets as sg

TABLE_STEP = 1.0 / 64.0  # sup |σ''| over |z| >= m is tabulated at this spacing in m (floor: conservative)


def second_derivative_tail(name: str, top: float = 64.0) -> torch.Tensor:
    """``T[i] >= sup_{|z| >= i TABLE_STEP} |σ''(z)|`` (sampled 64 times finer, inflated by 5%)."""
    sigma = sg.module(name).double()
    z = torch.arange(0.0, top + TABLE_STEP, TABLE_STEP / 64, dtype=torch.float64)
    z = torch.cat([z, -z])
    one = torch.ones_like(z)
    second = torch.func.jvp(lambda u: torch.func.jvp(sigma, (u,), (one,))[1], (z,), (one,))[1].abs()
    values = torch.maximum(*second.nan_to_num(0.0).chunk(2)).numpy()
    return torch.tensor(1.05 * np.maximum.accumulate(values[::-1])[::-1][::64].copy())


def groups(weight: torch.Tensor):
    """Rows of ``weight`` grouped by direction: representative rows ``(n_g, n_in)``, the group of each row and its
    factor ``a_j`` (``row_j = a_j rep_g``, checked to 2^-36 relative; zero rows form constant groups)."""
    pivot = weight.abs().argmax(1)
    value = weight[torch.arange(weight.shape[0]), pivot]
    zero = value == 0
    normal = torch.where(zero[:, None], torch.zeros_like(weight), weight / torch.where(zero, 1.0, value)[:, None])
    keys, index, reps, factor = {}, [], [], []
    for j in range(weight.shape[0]):
        key = (int(pivot[j]), torch.round(normal[j] * 2.0 ** 36).numpy().tobytes())
        if key in keys:
            g = keys[key]
            index.append(g)
            factor.append(0.0 if zero[j] else float(value[j] / reps[g][pivot[j]]))
            continue
        keys[key] = len(reps)
        index.append(len(reps))
        reps.append(torch.zeros_like(weight[j]) if zero[j] else weight[j])
        factor.append(1.0)
    return torch.stack(reps), torch.tensor(index), torch.tensor(factor, dtype=weight.dtype)


def stages(reading):
    """``[(W, b, σ, name), ...]``, one per σ layer, consecutive affine maps composed."""
    out, pending, names = [], None, iter(reading.activations)
    for kind, item in reading.layers:
        if kind == "linear":
            w, b = reading.maps[item]
            pending = (w, b) if pending is None else (w @ pending[0], w @ pending[1] + b)
        elif kind == "sigma":
            out.append(pending + (item, next(names)))
            pending = None
    return out


def flagged(layers, grouped, lo, hi, depth, *, per_unit=False, chunk=512):
    """Which cells ``[lo, hi]`` leave a unit of the first ``depth`` σ layers unresolved (sound enclosure)."""
    bad = torch.zeros(lo.shape[0], dtype=torch.bool)
    for start in range(0, lo.shape[0], chunk):
        c = ((lo + hi) / 2)[start:start + chunk, None]
        r = ((hi - lo) / 2)[start:start + chunk, None]
        rep, _, _ = grouped[0]
        v, s, R = c @ rep.T, torch.ones_like(c) @ rep.T, torch.zeros(c.shape[0], rep.shape[0], dtype=c.dtype)
        for layer, ((_, b, sigma, name), (rep, index, a)) in enumerate(zip(layers, grouped)):
            reach = s.abs() * r + R
            z, rho = a * v[:, index] + b, a.abs() * reach[:, index]
            linear = evaluation.LINEAR_BEYOND[name]
            bad[start:start + chunk] |= ((z.abs() - rho <= linear) & (2 * rho > evaluation.STEP)).any(1)
            if layer + 1 == min(depth, len(layers)):
                break
            nxt, _, _ = grouped[layer + 1]
            tail = second_derivative_tail(name)
            near = torch.where((z - rho <= 0) & (z + rho >= 0), 0.0, torch.minimum((z - rho).abs(), (z + rho).abs()))
            curvature = tail[(near / TABLE_STEP).floor().clamp(max=tail.shape[0] - 1).long()]
            slope = torch.func.jvp(sigma, (z,), (torch.ones_like(z),))[1] * a
            if per_unit:
                carried = (slope.abs() * R[:, index]) @ nxt.abs().T
            else:
                through = torch.zeros(c.shape[0], nxt.shape[0], rep.shape[0], dtype=c.dtype).index_add_(
                    2, index, nxt[None] * slope[:, None, :])
                carried = (through.abs() * R[:, None, :]).sum(2)
            R = carried + 0.5 * (a * a * curvature * reach[:, index] ** 2) @ nxt.abs().T
            v, s = sigma(z) @ nxt.T, (slope * s[:, index]) @ nxt.T
    return bad


def resolve(reading, K, depth, limit=1 << 18):
    """Bisect the ``K²`` fine cells until :func:`flagged` clears them: points added, cells left, bisection levels."""
    layers = stages(reading)
    grouped = [groups(w) for w, _, _, _ in layers]
    edges = torch.linspace(0.0, 1.0, K * K + 1, dtype=torch.float64)
    lo, hi, added, levels = edges[:-1], edges[1:], 0, 0
    while lo.numel():
        bad = flagged(layers, grouped, lo, hi, depth)
        lo, hi = lo[bad], hi[bad]
        if added + lo.numel() > limit:
            return added, lo.numel(), levels
        mid = (lo + hi) / 2
        added, levels = added + mid.numel(), levels + 1
        lo, hi = torch.cat([lo, mid]), torch.cat([mid, hi])
    return added, 0, levels


def flagged_share(reading, K, per_unit):
    """The share of the cells between the check's sample points that leave a unit unresolved, counting the first 1,
    2, ... σ layers (how far the enclosure stays tight)."""
    layers = stages(reading)
    grouped = [groups(w) for w, _, _, _ in layers]
    x = evaluation.evaluation_points(K, 1)
    points = torch.unique(torch.cat([x[:, 0], evaluation.first_layer_points(reading)[0][:, 0], x.new_tensor([0., 1.])]))
    out = []
    for depth in range(1, len(layers) + 1):
        lo, hi = points[:-1], points[1:]
        out.append(float(flagged(layers, grouped, lo, hi, depth, per_unit=per_unit).double().mean()))
    return out


def main() -> None:
    for name in ("gelu", "tanh"):
        for K in (4, 8, 16):
            reading = evaluation.read_network(smooth.constant_depth_network(smooth.chapter_target, k=1, K=K,
                                                                            activation=name, device="cpu"))
            start = time.process_time()
            added, left, levels = resolve(reading, K, depth=3)  # layers 1-3; depth=6 for all (K = 4 only)
            print(f"{name} K = {K}: layers 2-3 resolved with {added} points ({left} cells left, {levels} levels,"
                  f" {time.process_time() - start:.1f} s CPU); first layer {len(evaluation.first_layer_points(reading)[0])}"
                  f" points; share of sample cells flagged, layers 1..6: grouped"
                  f" {[round(v, 2) for v in flagged_share(reading, K, False)]},"
                  f" per-unit {[round(v, 2) for v in flagged_share(reading, K, True)]}", flush=True)


if __name__ == "__main__":
    main()
