"""Timing shared by the benchmarks: best-of-n wall times, the machine's dense matmul reference, JSON output.

Benchmarks report ratios measured side by side in one run, never absolute times; these
functions are the clock every script uses, and :func:`write_results` the one place results are written. Scripts run as ``python benchmarks/<name>.py``, which
puts this folder on ``sys.path``.
"""

from __future__ import annotations

import json
import time

import torch

from nnproofs.ledger import provenance


def timed(fn, device: torch.device):
    """``(fn(), wall seconds)``, synchronising on CUDA so that the time covers the device's work."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    start = time.perf_counter()
    result = fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return result, time.perf_counter() - start


def best_time(fn, device: torch.device, repeats: int = 3) -> float:
    """Best wall time of ``fn()`` over ``repeats`` runs after one warm-up."""
    fn()
    return min(timed(fn, device)[1] for _ in range(repeats))


def dense_matmul_time(flops: float, device: torch.device) -> float:
    """Time of a dense float64 matmul scaled to ``flops`` (a side^3 product costs 2 side^3 FLOPs)."""
    side = max(64, min(4096, int(round((flops / 2) ** (1 / 3)))))
    a = torch.rand(side, side, dtype=torch.float64, device=device)
    return best_time(lambda: a @ a, device) * flops / (2 * side**3)


def write_results(path: str | None, device: torch.device, **results) -> None:
    """Write ``results`` as JSON to ``path``, under the run's provenance (device, torch, date, scale); nothing when ``path`` is None."""
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"provenance": provenance(device), **results}, handle, indent=1, ensure_ascii=False)
