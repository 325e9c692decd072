"""Network A against Tasmanian's ``evaluateBatch``: the same sparse grid and the same points, in one run.

For each case (d = 2, level n = 8; d = 4, level n = 6) the chapter's Korobov target
(:func:`nnproofs.korobov.korobov_example`) is interpolated on the regular sparse grid with zero
boundary, and these evaluators are timed on the same 10^5 uniform random points:

* **Network A** (:func:`nnproofs.korobov.relu_sparse_grid_network`): exact ReLU hats and Yarotsky's
  zero-preserving products of depth ``s``, evaluated level by level (the one active copy of the
  basis network per level, a batched forward pass per chunk of points). ``s`` is the smallest
  depth whose a-priori distance to the interpolant, #levels·max|v|·(d−1)·2^(−2s), is at most 1% of
  the interpolant's own sample L∞ error, so the network is as accurate as the interpolant. Four
  paths: **eager** (every unit of the copy), **pruned** (``prune=True``: the copy pruned on
  [−1, 1]^d by :func:`nnproofs.pruning.prune_inactive`, the same function with fewer units),
  **pruned, compiled** (:meth:`~nnproofs.korobov.ReLUSparseGridNetwork.compile`, TorchInductor;
  left out, and said so, where no compiler works) and **pruned, fused**
  (:meth:`~nnproofs.korobov.ReLUSparseGridNetwork.fuse`, :mod:`nnproofs.fused`: the pruned copy
  unrolled and compiled with the sum over levels into one loop by numba, one thread; left out, and
  said so, without numba). Each path's largest distance to the eager values is recorded. The best
  path is "the network";
* **the interpolant** (:class:`nnproofs.sparsegrid.SparseGridInterpolant`), vectorised over levels;
* **the peer**: Tasmanian's local polynomial grid, rule ``localp-zero``, order 1, depth n − 1, on
  the domain [0, 1]^d, the same interpolant (its point set is asserted equal to ours, and its
  hierarchical coefficients to our surpluses, before anything is timed).

Accuracy (RMS and sample maximum of the error against the target) and throughput (points per
second, best of ``--repeats``) are printed side by side, with the ratio network / peer; JSON with
provenance (the CPU's name, the load average) goes to ``--out``. The network's arithmetic is also
set against the machine's dense float64 matmul rate, measured in the same run: the dense FLOPs per
point of each path (#levels times its template's sum over layers of 2 · out · in) give the fraction
of that rate it reaches, and the nonzero FLOPs per point of the **pruned** network (2 per nonzero
weight of the pruned template) give the **ceiling**: the points per second, and the ratio to the
peer, of an evaluation that did only the pruned network's nonzero multiply-adds at the matmul rate.
The unpruned network's ceiling is printed beside it. The ceiling bounds the paths that run each
layer as a matrix product (eager, pruned, compiled: they also multiply the zeros, and write every
layer to memory). It does not bound the fused path, which does only the nonzero multiply-adds, on
operands held in vector registers from the first layer to the last; for it the ceiling is a
reference, and the run records the fraction of it that the best path reaches (above 1 when the
fused loop runs faster than the matmul). Tasmanian is optional (``pip install Tasmanian``, version 8.2 tested;
it builds from source in about two minutes): without it the network is compared with the
interpolant's own evaluation and the output says that the peer is missing. Tasmanian runs on the
CPU with OpenMP; pin ``OMP_NUM_THREADS`` (and ``--threads`` for torch) to compare like with like.

Run: ``OMP_NUM_THREADS=1 python benchmarks/korobov_vs_tasmanian.py --out korobov_vs_tasmanian.json``
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np
import torch
from timing import best_time, dense_matmul_time, write_results

from nnproofs import device as book_device
from nnproofs.fused import FusedUnavailable
from nnproofs.korobov import korobov_example, relu_sparse_grid_network, uniform_points
from nnproofs.ledger import cpu_name
from nnproofs.networks import affine_maps, architecture
from nnproofs.sparsegrid import sparse_grid_interpolant

CASES = ((2, 8), (4, 6))  # (d, level n)
NETWORK_SLACK = 0.01  # Network A's a-priori distance to the interpolant, relative to the interpolant's error

try:
    import Tasmanian
except ImportError:  # optional peer
    Tasmanian = None



def errors(values: torch.Tensor, exact: torch.Tensor) -> dict:
    """RMS and sample maximum of ``values - exact``."""
    error = (values.reshape(-1).to(torch.float64) - exact).abs()
    return {"L2": float(error.pow(2).mean().sqrt()), "Linf": float(error.max())}


def product_depth(interpolant, linf_error: float) -> int:
    """Smallest ``s`` with #levels·max|v|·(d−1)·4^(−s) <= NETWORK_SLACK · (interpolant's sample L∞ error)."""
    budget = NETWORK_SLACK * linf_error
    scale = interpolant.levels.shape[0] * float(interpolant.surpluses.abs().max()) * (interpolant.d - 1)
    return max(1, math.ceil(math.log(scale / budget, 4)))


def flops_per_point(network, template) -> tuple[float, float]:
    """Dense and nonzero-only FLOPs of Network A per point: #levels copies of ``template``, 2 per multiply-add."""
    levels = network.interpolant.levels.shape[0]
    maps = affine_maps(template)
    return (levels * sum(2.0 * w.numel() for w, _ in maps), levels * sum(2.0 * int((w != 0).sum()) for w, _ in maps))


PATHS = ("eager", "pruned", "pruned, compiled", "pruned, fused")
MISSING = {"pruned, compiled": "torch.compile has no working compiler here", "pruned, fused": "numba is not installed"}


def sorted_rows(points: np.ndarray) -> np.ndarray:
    """Permutation that sorts the rows of ``points`` lexicographically."""
    return np.lexsort(points.T[::-1])


def tasmanian_interpolant(f, d: int, level: int):
    """Tasmanian's ``localp-zero`` order-1 grid of depth ``level - 1`` on [0, 1]^d with ``f`` loaded."""
    grid = Tasmanian.makeLocalPolynomialGrid(d, 1, level - 1, 1, "localp-zero")
    grid.setDomainTransform(np.array([[0.0, 1.0]] * d))
    points = grid.getNeededPoints()
    values = f(torch.from_numpy(points)).numpy()
    grid.loadNeededValues(values[:, None])
    return grid


def run_case(d: int, level: int, n_points: int, repeats: int, device: torch.device) -> dict:
    f = korobov_example(d)
    interpolant = sparse_grid_interpolant(f, d=d, level=level)
    x = uniform_points(n_points, d, seed=0, device=device)
    exact = f(x)
    row = {"d": d, "level": level, "grid points": interpolant.num_points, "evaluation points": n_points}
    with torch.no_grad():
        row["interpolant"] = errors(interpolant(x), exact)
        s = product_depth(interpolant, row["interpolant"]["Linf"])
        network = relu_sparse_grid_network(interpolant, s=s)
        pruned = relu_sparse_grid_network(interpolant, s=s, prune=True)
        compiled = relu_sparse_grid_network(interpolant, s=s, prune=True)
        fused = relu_sparse_grid_network(interpolant, s=s, prune=True)
        paths = {"eager": network, "pruned": pruned}
        if compiled.compile():
            paths["pruned, compiled"] = compiled
        try:
            fused.fuse()
            paths["pruned, fused"] = fused
        except FusedUnavailable:
            pass
        eager = network(x)
        row["network"] = {"s": s, "width": network.width, "depth": network.depth,
                          "nonzero parameters": network.nonzero_parameters}
        for name in PATHS:
            key = f"network ({name})"
            if name not in paths:
                row[key] = {"missing": MISSING[name]}
                continue
            template = paths[name].active_template
            values = paths[name](x)
            row[key] = errors(values, exact)
            row[key]["max |values − eager values|"] = float((values - eager).abs().max())
            row[key].update({"template nonzero parameters": architecture(template).nonzero_parameters,
                             "template depth": architecture(template).depth,
                             "template width": architecture(template).width})
            row[key]["points/s"] = n_points / best_time(lambda: paths[name](x), device, repeats)
        best = max(paths, key=lambda name: row[f"network ({name})"]["points/s"])
        row["network"].update({"best path": best, **{k: row[f"network ({best})"][k] for k in ("L2", "Linf", "points/s")}})
        dense, nonzero = flops_per_point(network, network.template)
        dense_pruned, nonzero_pruned = flops_per_point(pruned, pruned.active_template)
        matmul = dense_matmul_time(dense * n_points, device) / (dense * n_points)  # seconds per FLOP
        row["machine"] = {"dense FLOPs / point": dense, "nonzero FLOPs / point": nonzero,
                          "pruned: dense FLOPs / point": dense_pruned, "pruned: nonzero FLOPs / point": nonzero_pruned,
                          "fraction of the dense matmul rate": matmul * dense * row["network (eager)"]["points/s"],
                          "pruned: fraction of the dense matmul rate": matmul * dense_pruned * row["network"]["points/s"],
                          "ceiling points/s": 1 / (matmul * nonzero_pruned),
                          "best path: fraction of the ceiling": matmul * nonzero_pruned * row["network"]["points/s"],
                          "unpruned ceiling points/s": 1 / (matmul * nonzero)}
        row["interpolant"]["points/s"] = n_points / best_time(lambda: interpolant(x), device, repeats)
    if Tasmanian is not None:
        grid = tasmanian_interpolant(f, d, level)
        theirs = grid.getPoints()
        ours = interpolant.points.cpu().numpy()
        order_theirs, order_ours = sorted_rows(theirs), sorted_rows(ours)
        same_points = theirs.shape == ours.shape and float(np.abs(theirs[order_theirs] - ours[order_ours]).max()) == 0.0
        assert same_points, f"d={d}, n={level}: Tasmanian's localp-zero point set differs from ours"
        coefficients = grid.getHierarchicalCoefficients()[:, 0]
        surplus_gap = float(np.abs(coefficients[order_theirs] - interpolant.surpluses.cpu().numpy()[order_ours]).max())
        assert surplus_gap <= 1e-13, f"d={d}, n={level}: hierarchical coefficients differ by {surplus_gap:.3g}"
        xs = x.cpu().numpy()
        peer = errors(torch.from_numpy(grid.evaluateBatch(xs)[:, 0]).to(device), exact)
        peer["points/s"] = n_points / best_time(lambda: grid.evaluateBatch(xs), torch.device("cpu"), repeats)
        peer.update({"same point set": same_points, "max |coefficient − surplus|": surplus_gap})
        row["tasmanian"] = peer
        row["network / tasmanian (speed)"] = row["network"]["points/s"] / peer["points/s"]
        for name in paths:
            row[f"network ({name}) / tasmanian (speed)"] = row[f"network ({name})"]["points/s"] / peer["points/s"]
        row["interpolant / tasmanian (speed)"] = row["interpolant"]["points/s"] / peer["points/s"]
        row["ceiling / tasmanian (speed)"] = row["machine"]["ceiling points/s"] / peer["points/s"]
        row["unpruned ceiling / tasmanian (speed)"] = row["machine"]["unpruned ceiling points/s"] / peer["points/s"]
    row["network / interpolant (speed)"] = row["network"]["points/s"] / row["interpolant"]["points/s"]
    return row


def print_case(row: dict) -> None:
    print(f"\nd = {row['d']}, level n = {row['level']}: N = {row['grid points']} grid points, "
          f"{row['evaluation points']} evaluation points")
    net = row["network"]
    print(f"  Network A: s = {net['s']}, width {net['width']}, depth {net['depth']}, "
          f"{net['nonzero parameters']} nonzero parameters; template nonzero parameters "
          + ", ".join(f"{name} {row[f'network ({name})']['template nonzero parameters']}"
                      for name in PATHS[:2]))
    print(f"  {'evaluator':<32}{'L2 error':>12}{'Linf error':>12}{'points/s':>12}")
    names = [(f"network ({name})", f"Network A ({name})") for name in PATHS]
    names += [("interpolant", "interpolant (torch)"), ("tasmanian", "Tasmanian evaluateBatch")]
    for key, label in names:
        if key in row and "missing" in row[key]:
            print(f"  {label:<32}  missing: {row[key]['missing']}")
        elif key in row:
            r = row[key]
            print(f"  {label:<32}{r['L2']:>12.4e}{r['Linf']:>12.4e}{r['points/s']:>12.3e}")
    if "tasmanian" in row:
        print(f"  same point set as Tasmanian: {row['tasmanian']['same point set']}; "
              f"max |coefficient − surplus| = {row['tasmanian']['max |coefficient − surplus|']:.1e}")
        print(f"  speed ratio network / Tasmanian = {row['network / tasmanian (speed)']:.3g} "
              f"(best path: {net['best path']}; "
              + ", ".join(f"{name} {row[f'network ({name}) / tasmanian (speed)']:.3g}" for name in PATHS
                          if f"network ({name}) / tasmanian (speed)" in row)
              + f"; interpolant / Tasmanian = {row['interpolant / tasmanian (speed)']:.3g})")
    print("  max |values − eager values|: " + ", ".join(f"{name} {row[f'network ({name})']['max |values − eager values|']:.1e}"
                                                        for name in PATHS if "missing" not in row[f"network ({name})"]))
    print(f"  speed ratio network / interpolant = {row['network / interpolant (speed)']:.3g}")
    machine = row["machine"]
    print(f"  machine: {machine['dense FLOPs / point']:.3g} dense FLOPs per point "
          f"({machine['nonzero FLOPs / point']:.3g} nonzero), pruned {machine['pruned: dense FLOPs / point']:.3g} "
          f"({machine['pruned: nonzero FLOPs / point']:.3g} nonzero); of the dense float64 matmul rate, the eager "
          f"network reaches {machine['fraction of the dense matmul rate']:.3g}, the best pruned path "
          f"{machine['pruned: fraction of the dense matmul rate']:.3g}")
    for key, label in (("ceiling", "pruned network"), ("unpruned ceiling", "unpruned network")):
        ceiling = f"{machine[f'{key} points/s']:.3e} points/s"
        if f"{key} / tasmanian (speed)" in row:
            ceiling += f" = {row[f'{key} / tasmanian (speed)']:.3g} x Tasmanian"
        print(f"  ceiling of the {label} (nonzero multiply-adds only, at the matmul rate): {ceiling}")
    print(f"  the best path reaches {machine['best path: fraction of the ceiling']:.3g} of the pruned network's ceiling")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--points", type=int, default=100_000, help="evaluation points (default 1e5)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs per evaluator (best is kept)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: OMP_NUM_THREADS)")
    args = parser.parse_args(argv)
    if args.points < 1 or args.repeats < 1:
        parser.error("--points and --repeats must be positive")
    dev = book_device.setup(threads=args.threads)
    peer = f"Tasmanian {Tasmanian.__version__}" if Tasmanian is not None else None
    print(f"device {dev}, torch threads {torch.get_num_threads()}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    if peer is None:
        print("peer missing: Tasmanian is not installed (pip install Tasmanian); "
              "comparing Network A with the interpolant's own vectorised evaluation instead")
    else:
        print(f"peer: {peer}, rule localp-zero, order 1, depth n - 1")
    load = list(os.getloadavg())
    rows = [run_case(d, level, args.points, args.repeats, dev) for d, level in CASES]
    load = {"start (1, 5, 15 min)": load, "end (1, 5, 15 min)": list(os.getloadavg())}
    for row in rows:
        print_case(row)
    write_results(args.out, dev, peer=peer, cases=rows, **{"torch threads": torch.get_num_threads(),
                                                            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
                                                            "cpu": cpu_name(), "load average": load,
                                                            "repeats (best kept)": args.repeats})
    if args.out:
        print(f"\nwritten {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
