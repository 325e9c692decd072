"""Cost estimates of the chapter's operations, from their sizes alone (Python numbers, no allocation), and the
refusals beyond the floor's budgets (:mod:`nnproofs.budget`).

Every public function of :mod:`nnproofs.barrier` calls :func:`refuse` with its estimate before it starts.
The estimates count multiply-adds (work) and the bytes of the largest float64 table built at once (memory).
Small tensors cost more than their multiply-adds: each stored float passes through several elementwise
kernels (``ELEMENT``) and each Python-level step has a fixed overhead (``CALL``), both counted in
multiply-add equivalents (the floor's budget is about 10⁹ of them per second of one core).
"""

from __future__ import annotations

from .. import budget

SEGMENTS = 15  # at most: prune, free, spherize, merge, consolidate per side, and five in the bridge
LLOYD = 60  # weighted_kmeans' default iterations; the centroidal covers run 30 on max(2048, 16K) candidates
ELEMENT = 16  # multiply-add equivalents per stored float of an evaluation (its elementwise passes)
SET = 1000  # multiply-add equivalents per parameter set of a batched evaluation (tiny batched matrix
#   products: measured, sampling 1.1·10⁷ sets of width 6 on 2 points took 13 s of one core)
CALL = 1e5  # multiply-add equivalents of one Python-level step (a network built, a training step): ~0.1 ms
MAX_DRAWN = 20_000  # neurons or segments in one figure: more is refused
MAX_POINTS_PER_SEGMENT = 4097  # samples per segment: more is refused (the sampled cost has long converged)


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
    return float(iterations + 1) * (points * cells * n + CALL), 8.0 * points * max(cells, n)


def path(m: int, n: int, cover_kind: str, cells: int) -> tuple[float, float]:
    """``(work, memory)`` of :func:`constructive_path` for two networks of width ``m`` on ℝⁿ."""
    if cover_kind == "adaptive":
        w, b = kmeans(m, n, cells)
    else:
        w, b = cover(n, cells)
    assign = float(m) * cells * n
    return (2 * (w + assign) + SEGMENTS * (ELEMENT * m * (n + 1) + CALL),
            max(b, 8.0 * m * cells, 8.0 * SEGMENTS * m * (n + 1)))


def sampled(segments: int, points: int, m: int, n: int, samples: int) -> tuple[float, float]:
    """``(work, memory)`` of evaluating the cost at ``points`` times on each of ``segments`` segments."""
    sets = float(segments) * points
    stored = m * (n + 1) + samples
    return sets * (m * samples * (n + 1) + ELEMENT * stored + SET) + segments * CALL, 3 * 8.0 * sets * stored


def training(steps: int, networks: int, m: int, n: int, samples: int) -> tuple[float, float]:
    """``(work, memory)`` of full-batch training: forward and backward, three passes per step."""
    per_step = networks * (3.0 * m * samples * (n + 1) + 3 * ELEMENT * m * (samples + n + 1) + SET) + CALL
    return steps * per_step, 8.0 * 4 * networks * m * samples


def networks(count: int, m: int, n: int) -> tuple[float, float]:
    """``(work, memory)`` of building ``count`` networks of width ``m`` on ℝⁿ one at a time."""
    return count * (ELEMENT * m * (n + 1) + CALL), 8.0 * count * m * (n + 1)
