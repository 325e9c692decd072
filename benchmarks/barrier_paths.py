"""Low-loss paths between trained shallow ReLU networks: the construction against the path finders.

For each configuration (input dimension n, loss, width m) a few networks are trained and every pair
of them is joined, in one run and on the same device, by

* the constructive path of Theorem thm-barrier-decay (grid and adaptive covers), which is written
  down together with a certificate,
* weight matching (Hungarian assignment of hidden units) followed by the straight line, and
* a quadratic Bezier curve whose control point is trained by Adam (300 steps, all pairs batched),
  and the same curve trained for one pair alone.

It prints and writes, per configuration, the time to find the path per pair and the barrier each
method reached, and as ratios (Bezier / constructive, matching / constructive), which are stable on
noisy machines where absolute times are not. A second measurement evaluates the cost along every
constructive path of a configuration one path at a time and all paths in one batch
(:func:`nnproofs.barrier.barriers`). Run: ``python benchmarks/barrier_paths.py --out results.json``.
"""

from __future__ import annotations

import argparse
import itertools
import sys

import torch

from nnproofs import barrier
from nnproofs import device as book_device
from timing import timed, write_results

BEZIER_STEPS = 300



def best(fn, device: torch.device, repeats: int = 3):
    """The result of ``fn()`` and its best wall time over ``repeats`` runs."""
    runs = [timed(fn, device) for _ in range(repeats)]
    return runs[0][0], min(t for _, t in runs)


def measure(n: int, loss: str, width: int, seeds: int, device: torch.device) -> dict:
    x, y = barrier.teacher_data(n, loss=loss, device=device)
    W, a = barrier.train_networks(x, y, width=width, seeds=seeds, loss=loss, seed=width)
    pairs = [((W[i], a[i]), (W[j], a[j])) for i, j in itertools.combinations(range(seeds), 2)]
    count = len(pairs)

    def reached(paths, points=17):
        return max(barrier.barriers(paths, x, y, loss=loss, lam=barrier.LAMBDA, points_per_segment=points))

    grid, t_grid = best(lambda: [barrier.constructive_path(A, B, x, cover="grid") for A, B in pairs], device)
    adaptive, t_adaptive = best(lambda: [barrier.constructive_path(A, B, x) for A, B in pairs], device)
    matched, t_matched = best(lambda: [barrier.matched_line(A, B) for A, B in pairs], device)
    bezier, t_bezier = timed(lambda: barrier.bezier_paths(pairs, x, y, loss=loss, steps=BEZIER_STEPS), device)
    single, t_single = timed(lambda: barrier.bezier_paths(pairs[:1], x, y, loss=loss, steps=BEZIER_STEPS), device)
    lipschitz = barrier.get_loss(loss).lipschitz
    row = {
        "n": n, "loss": loss, "m": width, "pairs": count, "device": str(device),
        "seconds_per_pair": {
            "constructive (grid)": t_grid / count,
            "constructive (adaptive)": t_adaptive / count,
            "weight matching + line": t_matched / count,
            f"Bezier, {BEZIER_STEPS} steps, pairs batched": t_bezier / count,
            f"Bezier, {BEZIER_STEPS} steps, one pair": t_single,
        },
        "largest barrier": {
            "straight line": reached([barrier.straight_line(A, B) for A, B in pairs], 51),
            "constructive (grid)": reached(grid),
            "constructive (adaptive)": reached(adaptive),
            "weight matching + line": reached(matched, 51),
            "Bezier": reached(bezier, 101),
            "Bezier, one pair": reached(single, 101),
        },
        "largest certificate": {
            "constructive (grid)": max(p.certificate(x, lipschitz) for p in grid),
            "constructive (adaptive)": max(p.certificate(x, lipschitz) for p in adaptive),
        },
    }
    seconds = row["seconds_per_pair"]
    row["bezier_batched_over_adaptive"] = seconds[f"Bezier, {BEZIER_STEPS} steps, pairs batched"] / seconds[
        "constructive (adaptive)"]
    row["bezier_single_over_adaptive"] = seconds[f"Bezier, {BEZIER_STEPS} steps, one pair"] / seconds[
        "constructive (adaptive)"]
    row["matching_over_adaptive"] = seconds["weight matching + line"] / seconds["constructive (adaptive)"]
    one_by_one, t_loop = best(lambda: [barrier.barrier(p, x, y, loss=loss, lam=barrier.LAMBDA) for p in adaptive],
                              device)
    batched, t_batch = best(lambda: barrier.barriers(adaptive, x, y, loss=loss, lam=barrier.LAMBDA), device)
    assert max(abs(u - v) for u, v in zip(one_by_one, batched)) <= 1e-12, "batched evaluation disagrees"
    row["evaluation"] = {"parameter_sets": sum(len(p.segments) for p in adaptive) * 17,
                         "one_path_at_a_time_s": t_loop, "all_pairs_batched_s": t_batch,
                         "batched_speedup": t_loop / t_batch}
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    dev = book_device.setup()
    seeds = book_device.sizes(ci=4, full=10)
    configs = book_device.sizes(
        ci=[(2, "huber", 32), (2, "huber", 128), (3, "bce", 64)],
        full=[(n, loss, m) for n in (2, 3) for loss in barrier.LOSSES for m in (16, 32, 64, 128)],
    )
    rows = []
    for n, loss, width in configs:
        row = measure(n, loss, width, seeds, dev)
        rows.append(row)
        reached = row["largest barrier"]
        print(f"n={n} {loss:5s} m={width:3d} ({row['pairs']} pairs): per pair adaptive"
              f" {row['seconds_per_pair']['constructive (adaptive)']:.2e} s; Bezier batched x"
              f"{row['bezier_batched_over_adaptive']:.0f}, Bezier one pair x{row['bezier_single_over_adaptive']:.0f},"
              f" matching x{row['matching_over_adaptive']:.2f} | barrier: line {reached['straight line']:.1e},"
              f" matched {reached['weight matching + line']:.1e}, Bezier {reached['Bezier']:.1e},"
              f" grid {reached['constructive (grid)']:.1e}, adaptive {reached['constructive (adaptive)']:.1e}"
              f" (certificate {row['largest certificate']['constructive (adaptive)']:.1e}) | batched evaluation"
              f" x{row['evaluation']['batched_speedup']:.1f}")
    write_results(args.out, dev, barrier_paths=rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
