"""Cost estimates of the chapter's operations, from their sizes alone (Python numbers, no allocation), and the
refusals beyond the floor's budgets (design.md section 5, rule 14; :mod:`nnproofs.budget`).

Every public function of :mod:`nnproofs.barrier` calls :func:`refuse` with its estimate before it starts.
The estimates count multiply-adds (work) and the bytes of the largest float64 table built at once (memory).
"""

from __future__ import annotations

from .. import budget

SEGMENTS = 15  # at most: prune, free, spherize, merge, consolidate per side, and five in the bridge
LLOYD = 60  # weighted_kmeans' default iterations; the centroidal covers run 30 on max(2048, 16K) candidates


def refuse(name: str, value, *, work: float = 0.0, memory: float = 0.0) -> None:
    """Raise ``ValueError`` naming ``name`` when ``work`` (multiply-adds) or ``memory`` (bytes) is beyond budget."""
    budget.refuse_beyond(name, value, cost=work, limit=budget.work(), unit="multiply-adds")
    budget.refuse_beyond(name, value, cost=memory, limit=budget.memory(), unit="bytes")


def cover(n: int, cells: int, *, ball: bool = False) -> tuple[float, float]:
    """``(work, memory)`` of :func:`sphere_cover` / :func:`ball_cover` with ``cells`` centres in dimension ``n``."""
    if n <= 3 and not ball:
        return float(cells) * n, 8.0 * cells * n
    candidates = max(2048, 16 * cells)
    return 31.0 * candidates * cells * (n + 1), 8.0 * candidates * max(cells, n + 1)


def kmeans(points: int, n: int, cells: int, iterations: int = LLOYD) -> tuple[float, float]:
    """``(work, memory)`` of :func:`weighted_kmeans`: farthest points, then ``iterations`` Lloyd steps."""
    return float(iterations + 1) * points * cells * n, 8.0 * points * max(cells, n)


def path(m: int, n: int, cover_kind: str, cells: int) -> tuple[float, float]:
    """``(work, memory)`` of :func:`constructive_path` for two networks of width ``m`` on ℝⁿ."""
    if cover_kind == "adaptive":
        w, b = kmeans(m, n, cells)
    else:
        w, b = cover(n, cells)
    assign = float(m) * cells * n
    return 2 * (w + assign) + SEGMENTS * m * (n + 1), max(b, 8.0 * m * cells, 8.0 * SEGMENTS * m * (n + 1))


def sampled(segments: int, points: int, m: int, n: int, samples: int) -> tuple[float, float]:
    """``(work, memory)`` of evaluating the cost at ``points`` times on each of ``segments`` segments."""
    sets = float(segments) * points
    return sets * m * samples * (n + 1), 8.0 * sets * (m * (n + 1) + samples)


def training(steps: int, networks: int, m: int, n: int, samples: int) -> tuple[float, float]:
    """``(work, memory)`` of full-batch training: forward and backward, three passes per step."""
    return 3.0 * steps * networks * m * samples * (n + 1), 8.0 * 4 * networks * m * samples
