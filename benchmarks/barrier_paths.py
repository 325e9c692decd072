"""Low-loss paths between trained shallow ReLU networks: the construction against the path finders, like for like.

For each configuration (input dimension n, loss, width m) a few networks are trained and every pair
of them is joined, in one run and on the same device, by

* the straight line and weight matching (Hungarian assignment of hidden units) followed by the line,
* a quadratic Bezier curve whose control point is trained by Adam (all pairs batched), with and
  without matching first, stopped by a convergence rule (every ``CHECK_EVERY`` steps the largest
  barrier over the pairs is evaluated; training stops when it fell by less than ``CONVERGE`` of its
  previous value or reached round-off, at most ``BEZIER_MAX_STEPS`` steps), and
* the constructive path of Theorem thm-barrier-decay (grid and adaptive covers), written down
  together with a certificate.

Every method is timed the same way: the best wall time of ``REPEATS`` runs after one warm-up, both
to *find* the path (``nnproofs.barrier.path_finders``, the functions ``compare_paths`` uses) and to
*evaluate* its barrier (``nnproofs.barrier.barriers`` at ``POINTS_PER_SEGMENT``: 51 samples on lines,
101 on curves, 17 per constructive segment). Their sum is the time to a path whose (sampled) barrier
is known. The script prints per configuration the barrier each method reached, its relative barrier
(over the cost level ``max(C_A, C_B)``) and its time to a known path as a ratio to the adaptive
construction's, which is stable on noisy machines where absolute times are not. A second measurement
evaluates the constructive paths one at a time and all in one batch.
The provenance (the CPU's name, the load average at the start and the end, the thread settings) goes
to ``--out``. The Bezier cap of ``BEZIER_MAX_STEPS`` steps is beyond the floor's ci work budget for the
larger configurations (the convergence rule stops far earlier), so the script raises the budget factor
to the full-scale one (``BOOK_BUDGET_FACTOR=64``) unless it is set.
Run: ``python benchmarks/barrier_paths.py --out results.json``; ``--first`` for the first configuration
only (what the book shows), ``--smoke`` for a quick check.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys

import torch

from nnproofs import barrier, budget
from nnproofs import device as book_device
from nnproofs.ledger import cpu_name
from timing import best_time, timed, write_results

os.environ.setdefault(budget.FACTOR_VARIABLE, str(budget.FULL_FACTOR))

REPEATS = book_device.sizes(ci=3, full=1)  # best of REPEATS runs after a warm-up, for every method alike
BEZIER_MAX_STEPS = 5000
SMOKE_BEZIER_STEPS = 100
CONVERGE = 0.01  # Bezier training stops when the largest barrier fell by less than 1% over CHECK_EVERY steps
CHECK_EVERY = 100


def best(fn, device: torch.device, repeats: int = REPEATS):
    """The result of ``fn()`` and its best wall time over ``repeats`` runs after one warm-up."""
    result = fn()
    return result, min(timed(fn, device)[1] for _ in range(repeats))


def measure(n: int, loss: str, width: int, seeds: int, device: torch.device, repeats: int = REPEATS,
            bezier_steps: int = BEZIER_MAX_STEPS) -> dict:
    x, y = barrier.teacher_data(n, loss=loss, device=device)
    W, a = barrier.train_networks(x, y, width=width, seeds=seeds, loss=loss, seed=width)
    pairs = [((W[i], a[i]), (W[j], a[j])) for i, j in itertools.combinations(range(seeds), 2)]
    count = len(pairs)
    lipschitz = barrier.get_loss(loss).lipschitz
    level = max(max(float(c) for c in barrier.cost(W, a, x, y, loss=loss, lam=barrier.LAMBDA)), 1e-300)

    finders = barrier.path_finders(pairs, x, y, loss=loss, bezier_steps=bezier_steps, converge=CONVERGE,
                                   check_every=CHECK_EVERY)
    methods = {}
    for method, build in finders.items():
        paths, t_find = best(build, device, repeats)
        points = barrier.POINTS_PER_SEGMENT[method]
        reached, t_eval = best(lambda: barrier.barriers(paths, x, y, loss=loss, lam=barrier.LAMBDA,
                                                        points_per_segment=points), device, repeats)
        methods[method] = {
            "find_s_per_pair": t_find / count,
            "evaluate_s_per_pair": t_eval / count,
            "known_path_s_per_pair": (t_find + t_eval) / count,
            "largest_barrier": max(reached),
            "largest_relative_barrier": max(reached) / level,
            "largest_certificate": (max(p.certificate(x, lipschitz) for p in paths) if paths[0].moments is not None
                                    else None),
            "bezier_steps": paths[0].info.get("steps"),
        }
    reference = methods["constructive (adaptive)"]["known_path_s_per_pair"]
    for row in methods.values():
        row["known_path_over_adaptive"] = row["known_path_s_per_pair"] / reference
    adaptive = finders["constructive (adaptive)"]()
    t_loop = best_time(lambda: [barrier.barrier(p, x, y, loss=loss, lam=barrier.LAMBDA) for p in adaptive], device,
                       repeats)
    t_batch = best_time(lambda: barrier.barriers(adaptive, x, y, loss=loss, lam=barrier.LAMBDA), device, repeats)
    return {"n": n, "loss": loss, "m": width, "pairs": count, "level": level, "device": str(device),
            "methods": methods,
            "evaluation": {"parameter_sets": sum(len(p.segments) for p in adaptive) * 17,
                           "one_path_at_a_time_s": t_loop, "all_pairs_batched_s": t_batch,
                           "batched_speedup": t_loop / t_batch}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--first", action="store_true",
                        help="only the first configuration (n = 2, Huber, m = 32), with every setting as in the"
                             " full run: the run the book shows")
    parser.add_argument("--smoke", action="store_true",
                        help="a smoke run that only shows the script works: the first configuration, one pair,"
                             f" Bezier curves trained for at most {SMOKE_BEZIER_STEPS} steps, one timed run")
    args = parser.parse_args(argv)
    dev = book_device.setup()
    seeds = 2 if args.smoke else book_device.sizes(ci=4, full=10)
    configs = book_device.sizes(
        ci=[(2, "huber", 32), (2, "huber", 128), (3, "bce", 64)],
        full=[(n, loss, m) for n in (2, 3) for loss in barrier.LOSSES for m in (16, 32, 64, 128)],
    )
    repeats, bezier_steps = (1, SMOKE_BEZIER_STEPS) if args.smoke else (REPEATS, BEZIER_MAX_STEPS)
    rows = []
    load = list(os.getloadavg())
    for n, loss, width in configs[:1] if args.smoke or args.first else configs:
        row = measure(n, loss, width, seeds, dev, repeats, bezier_steps)
        rows.append(row)
        print(f"n={n} {loss} m={width} ({row['pairs']} pairs, cost level {row['level']:.3g}); time to a path with a"
              f" known barrier, per pair, as a multiple of the adaptive construction's"
              f" ({row['methods']['constructive (adaptive)']['known_path_s_per_pair']:.2e} s):")
        for method, r in row["methods"].items():
            steps = f", {r['bezier_steps']} steps" if r["bezier_steps"] is not None else ""
            certificate = "" if r["largest_certificate"] is None else f", certificate {r['largest_certificate']:.2e}"
            print(f"  {method:26s} x{r['known_path_over_adaptive']:8.2f}  (find {r['find_s_per_pair']:.2e} s,"
                  f" evaluate {r['evaluate_s_per_pair']:.2e} s{steps})  barrier {r['largest_barrier']:.2e},"
                  f" relative {r['largest_relative_barrier']:.2e}{certificate}")
        print(f"  batched evaluation of the adaptive paths: x{row['evaluation']['batched_speedup']:.1f}")
    load = {"start (1, 5, 15 min)": load, "end (1, 5, 15 min)": list(os.getloadavg())}
    write_results(args.out, dev, barrier_paths=rows, cpu=cpu_name(), **{
        "load average": load, "torch threads": torch.get_num_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "repeats (best kept)": repeats,
        "smoke": args.smoke, "first configuration only": args.first})
    return 0


if __name__ == "__main__":
    sys.exit(main())
